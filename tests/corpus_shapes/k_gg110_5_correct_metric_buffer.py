# corpus: correct: a metric tracker keeps a buffer across update() calls and converts predictions with .detach().cpu().numpy() before storing them
# source: docs/rules/GG110.md (shape: 5)
import numpy as np
import torch
import torch.nn as nn


class MetricTracker:
    def __init__(self):
        self.buffer = []
        self.targets = []

    def update(self, pred, target):
        self.buffer.append(pred.detach().cpu().numpy())
        self.targets.append(target.numpy())

    def compute(self):
        preds = np.concatenate(self.buffer)
        targets = np.concatenate(self.targets)
        self.buffer.clear()
        self.targets.clear()
        return float(np.mean((preds - targets) ** 2))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    tracker = MetricTracker()
    for epoch in range(2):
        for step in range(3):
            x, y = torch.randn(8, 4), torch.randn(8, 1)
            pred = model(x)
            loss = nn.functional.mse_loss(pred, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            tracker.update(pred, y)
        print(epoch, tracker.compute())


if __name__ == "__main__":
    main()
