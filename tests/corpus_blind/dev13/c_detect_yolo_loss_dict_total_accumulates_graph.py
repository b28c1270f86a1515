# corpus: YOLO-style detection trainer whose loss function returns the total loss plus a dict of box/cls/dfl components; train_one_epoch sums the components into a defaultdict of tensors for epoch logging, and because the components still carry the graph every batch's graph stays alive until the epoch ends
# source: https://github.com/MultimediaTechLab/YOLO/pull/83
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyDetector(nn.Module):
    def __init__(self, in_ch=3, num_classes=5, reg_max=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(in_ch, 8, 3, padding=1), nn.SiLU(),
                                      nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.SiLU())
        self.cls_head = nn.Conv2d(16, num_classes, 1)
        self.box_head = nn.Conv2d(16, 4 * reg_max, 1)
        self.reg_max = reg_max

    def forward(self, x):
        feats = self.backbone(x)
        return {"cls": self.cls_head(feats), "box": self.box_head(feats)}


class YOLOLoss:
    def __init__(self, reg_max=4, weights=None):
        self.reg_max = reg_max
        self.weights = weights or {"BoxLoss": 7.5, "DFLoss": 1.5, "BCELoss": 0.5}

    def __call__(self, predicts, targets):
        cls_target, box_target = targets
        b, _, h, w = predicts["box"].shape
        dist = predicts["box"].view(b, 4, self.reg_max, h, w)
        box_pred = (dist.softmax(2) * torch.arange(self.reg_max, dtype=torch.float32).view(1, 1, -1, 1, 1)).sum(2)
        loss_dict = {
            "BoxLoss": F.smooth_l1_loss(box_pred, box_target),
            "DFLoss": F.cross_entropy(dist.permute(0, 1, 3, 4, 2).reshape(-1, self.reg_max),
                                      box_target.round().long().clamp(0, self.reg_max - 1).reshape(-1)),
            "BCELoss": F.binary_cross_entropy_with_logits(predicts["cls"], cls_target),
        }
        loss = sum(self.weights[k] * v for k, v in loss_dict.items())
        return loss, loss_dict


class ModelTrainer:
    def __init__(self, model, device="cpu"):
        self.model = model
        self.device = torch.device(device)
        self.loss_fn = YOLOLoss(reg_max=model.reg_max)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def train_one_batch(self, images, targets):
        self.optimizer.zero_grad()
        predicts = self.model(images)
        loss, loss_each = self.loss_fn(predicts, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 10.0)
        self.optimizer.step()
        return loss_each

    def train_one_epoch(self, dataloader):
        self.model.train()
        total_loss = defaultdict(lambda: torch.tensor(0.0, device=self.device))
        total_samples = 0
        for images, targets in dataloader:
            batch_size = images.shape[0]
            loss_each = self.train_one_batch(images, targets)
            for loss_name, loss_val in loss_each.items():
                total_loss[loss_name] += loss_val * batch_size  # expect: GG301
            total_samples += batch_size
        return {name: value / total_samples for name, value in total_loss.items()}

    def solve(self, dataloader, epochs=2):
        for epoch in range(epochs):
            epoch_loss = self.train_one_epoch(dataloader)
            print(f"epoch {epoch}: " + ", ".join(f"{k}={v.item():.4f}" for k, v in epoch_loss.items()))


def make_loader(n_batches=6, batch_size=4, num_classes=5, reg_max=4):
    g = torch.Generator().manual_seed(0)
    data = []
    for _ in range(n_batches):
        images = torch.randn(batch_size, 3, 16, 16, generator=g)
        cls_target = (torch.rand(batch_size, num_classes, 8, 8, generator=g) > 0.8).float()
        box_target = torch.rand(batch_size, 4, 8, 8, generator=g) * (reg_max - 1)
        data.append((images, (cls_target, box_target)))
    return data


def main():
    torch.manual_seed(0)
    trainer = ModelTrainer(TinyDetector())
    trainer.solve(make_loader(), epochs=2)


if __name__ == "__main__":
    main()
