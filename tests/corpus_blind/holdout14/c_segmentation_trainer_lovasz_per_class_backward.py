# corpus: range-image moving-object segmentation Trainer (LiDAR-MOS / SalsaNext shape) whose train_epoch adds NLL to a Lovasz-style per-class loss that returns one value per class, so loss_m is a vector and loss_m.backward() is called without a gradient
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/PRBonn/LiDAR-MOS/issues/56
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class Lovasz_softmax(nn.Module):
    """Per-class Lovasz extension of the Jaccard loss (one value per present class)."""

    def __init__(self, ignore=0):
        super().__init__()
        self.ignore = ignore

    def forward(self, probas, labels):
        C = probas.size(1)
        probas = probas.permute(0, 2, 3, 1).reshape(-1, C)
        labels = labels.reshape(-1)
        valid = labels != self.ignore
        probas, labels = probas[valid], labels[valid]
        losses = []
        for c in range(C):
            fg = (labels == c).float()
            errors = (fg - probas[:, c]).abs()
            errors_sorted, perm = torch.sort(errors, descending=True)
            fg_sorted = fg[perm]
            gts = fg_sorted.sum()
            inter = gts - fg_sorted.cumsum(0)
            union = gts + (1 - fg_sorted).cumsum(0)
            jaccard = 1.0 - inter / union
            jaccard[1:] = jaccard[1:] - jaccard[:-1]
            losses.append(torch.dot(errors_sorted, jaccard))
        return torch.stack(losses)


class SalsaNextTiny(nn.Module):
    def __init__(self, in_ch=5, n_classes=3):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(in_ch, 16, 3, padding=1), nn.LeakyReLU(), nn.Conv2d(16, 16, 3, padding=1))
        self.logits = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        return F.softmax(self.logits(F.leaky_relu(self.enc(x))), dim=1)


class Trainer:
    def __init__(self, model, n_classes=3, lr=1e-3):
        self.model = model
        self.criterion = nn.NLLLoss(weight=torch.tensor([0.0, 1.0, 2.0]))
        self.ls = Lovasz_softmax(ignore=0)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    def train_epoch(self, loader, epoch, report=1):
        losses, batch_time = AverageMeter(), AverageMeter()
        self.model.train()
        end = time.time()
        for i, (proj_in, proj_labels) in enumerate(loader):
            output = self.model(proj_in)
            loss_m = self.criterion(torch.log(output.clamp(min=1e-8)), proj_labels) + self.ls(output, proj_labels)  # also: GG109
            self.optimizer.zero_grad()
            loss_m.backward()  # expect: GG109
            self.optimizer.step()
            losses.update(loss_m.mean().item(), proj_in.size(0))
            batch_time.update(time.time() - end)
            end = time.time()
            if i % report == 0:
                print(f"Epoch: [{epoch}][{i}] | Loss {losses.val:.4f} ({losses.avg:.4f}) | Time {batch_time.val:.3f}")
        return losses.avg


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(2, 5, 16, 32), torch.randint(0, 3, (2, 16, 32))) for _ in range(3)]
    trainer = Trainer(SalsaNextTiny())
    for epoch in range(2):
        trainer.train_epoch(loader, epoch)


if __name__ == "__main__":
    main()
