# corpus: OHEM criterion takes reduction='none' pixel losses, keeps the hardest ones and returns their mean before backward (correct)
# source: https://blog.csdn.net/cyj972628089/article/details/122732509
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class OhemCrossEntropy(nn.Module):
    def __init__(self, ignore_label=-1, thresh=0.7, min_kept=20):
        super().__init__()
        self.thresh = thresh
        self.min_kept = max(1, min_kept)
        self.ignore_label = ignore_label
        self.criterion = nn.CrossEntropyLoss(ignore_index=ignore_label, reduction="none")

    def forward(self, score, target):
        pred = F.softmax(score, dim=1)
        pixel_losses = self.criterion(score, target).contiguous().view(-1)
        mask = target.contiguous().view(-1) != self.ignore_label
        tmp_target = target.clone()
        tmp_target[tmp_target == self.ignore_label] = 0
        pred = pred.gather(1, tmp_target.unsqueeze(1))
        pred, ind = pred.contiguous().view(-1)[mask].contiguous().sort()
        min_value = pred[min(self.min_kept, pred.numel() - 1)]
        threshold = max(min_value, self.thresh)
        pixel_losses = pixel_losses[mask][ind]
        pixel_losses = pixel_losses[pred < threshold]
        return pixel_losses.mean(), pixel_losses


class TinySegNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, n_classes, 1))

    def forward(self, x):
        return self.conv(x)


class SegTrainer:
    def __init__(self, model):
        self.model = model
        self.criterion = OhemCrossEntropy()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        self.kept_hist = []

    def train_step(self, image, label):
        self.optimizer.zero_grad()
        loss, kept = self.criterion(self.model(image), label)
        loss.backward()
        self.optimizer.step()
        self.kept_hist.append(np.histogram(kept.detach().cpu().numpy(), bins=5)[0])
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = SegTrainer(TinySegNet())
    for _ in range(3):
        label = torch.randint(0, 3, (2, 8, 8))
        label[:, :2, :2] = -1
        trainer.train_step(torch.randn(2, 3, 8, 8), label)
    return trainer


if __name__ == "__main__":
    trainer = main()
    assert all(p.grad is not None for p in trainer.model.parameters())
    assert len(trainer.kept_hist) == 3
