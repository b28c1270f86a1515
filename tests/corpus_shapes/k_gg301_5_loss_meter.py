# corpus: a LossMeter object accumulates validation losses in self.total across update() calls; validate() runs without no_grad, so the meter keeps every batch's graph alive (silent memory growth)
# source: docs/rules/GG301.md (shape: 5, 2)
import torch
import torch.nn as nn
import torch.nn.functional as F


class LossMeter:
    def __init__(self):
        self.total = torch.zeros(())
        self.count = 0

    def update(self, loss):
        self.total = self.total + loss  # expect: GG301
        self.count += 1

    @property
    def average(self):
        return self.total / max(self.count, 1)


def validate(model, batches, meter):
    model.eval()
    for x, y in batches:
        meter.update(F.mse_loss(model(x), y))
    model.train()
    return meter.average.item()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 1))
    val_batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
    meter = LossMeter()
    print(validate(model, val_batches, meter))
    return meter


if __name__ == "__main__":
    main()
