# corpus: correct: a GradAccumulator object counts micro-batches across step() calls and clears the gradients under the same condition that steps the optimizer
# source: docs/rules/GG201.md (shape: 5)
import torch
import torch.nn as nn
import torch.nn.functional as F


class GradAccumulator:
    def __init__(self, model, optimizer, every=2):
        self.model = model
        self.optimizer = optimizer
        self.every = every
        self.count = 0

    def step(self, x, y):
        loss = F.mse_loss(self.model(x), y) / self.every
        loss.backward()
        self.count += 1
        if self.count % self.every == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()
        return loss.item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
acc = GradAccumulator(model, optimizer, every=2)
for i in range(6):
    acc.step(torch.randn(8, 4), torch.randn(8, 1))
