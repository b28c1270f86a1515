# corpus: segmentation Engine with autocast + GradScaler and gradient accumulation as in the AMP examples: loss scaled by 1/k, zero_grad only after the scaler step under the same condition, meter fed loss.detach(); correct
# source: https://pytorch.org/docs/stable/notes/amp_examples.html
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class EngineConfig:
    iters_to_accumulate: int = 2
    max_norm: float = 1.0
    epochs: int = 2
    lr: float = 5e-2


@dataclass
class MetricMeter:
    total: torch.Tensor = field(default_factory=lambda: torch.zeros(()))
    count: int = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    def compute(self):
        return (self.total / max(self.count, 1)).item()


class SegNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(8, n_classes, 1)

    def forward(self, x):
        return self.classifier(self.body(x))


def soft_dice(logits, target, n_classes=3, eps=1.0):
    probs = logits.float().softmax(dim=1)
    onehot = F.one_hot(target, n_classes).permute(0, 3, 1, 2).float()
    inter = (probs * onehot).sum(dim=(0, 2, 3))
    union = probs.sum(dim=(0, 2, 3)) + onehot.sum(dim=(0, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


class Engine:
    def __init__(self, model, cfg, callbacks=()):
        self.model, self.cfg, self.callbacks = model, cfg, list(callbacks)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
        self.scaler = torch.amp.GradScaler("cpu")

    def train_epoch(self, epoch, loader):
        self.model.train()
        meter = MetricMeter()
        for i, (images, masks) in enumerate(loader):
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                logits = self.model(images)
                loss = F.cross_entropy(logits.float(), masks) + soft_dice(logits, masks)
                loss = loss / self.cfg.iters_to_accumulate
            self.scaler.scale(loss).backward()
            if (i + 1) % self.cfg.iters_to_accumulate == 0:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_norm)
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
            meter.update(loss.detach() * self.cfg.iters_to_accumulate, n=images.size(0))
        for cb in self.callbacks:
            cb(epoch, meter.compute())

    def fit(self, loader):
        for epoch in range(self.cfg.epochs):
            self.train_epoch(epoch, loader)


def make_loader(n=6, b=2, hw=6):
    return [(torch.randn(b, 3, hw, hw), torch.randint(0, 3, (b, hw, hw))) for _ in range(n)]


def main():
    torch.manual_seed(0)
    model = SegNet()
    engine = Engine(model, EngineConfig(), callbacks=[lambda e, l: print(f"epoch {e}: loss {l:.4f}")])
    w0 = model.classifier.weight.detach().clone()
    engine.fit(make_loader())
    print("classifier weight changed:", (model.classifier.weight - w0).abs().max().item() > 0)


if __name__ == "__main__":
    main()
