# corpus: correct: a prioritized replay learner keeps per-sample weights in self.buffer state, multiplies the reduction="none" loss by them and reduces with .mean() before backward
# source: docs/rules/GG109.md (shape: 5, 1)
import torch
import torch.nn as nn


class PrioritizedLearner:
    def __init__(self, model, optimizer, capacity=8):
        self.model = model
        self.optimizer = optimizer
        self.criterion = nn.SmoothL1Loss(reduction="none")
        self.buffer = []
        self.priorities = torch.ones(capacity)

    def add(self, x, y):
        self.buffer.append((x, y))

    def step(self):
        xs = torch.stack([x for x, _ in self.buffer])
        ys = torch.stack([y for _, y in self.buffer])
        n = len(self.buffer)
        weights = self.priorities[:n] / self.priorities[:n].sum()
        per_sample = self.criterion(self.model(xs), ys).squeeze(1)
        loss = (per_sample * weights).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.priorities[:n] = per_sample.detach() + 1e-3
        return loss.item()


torch.manual_seed(0)
model = nn.Linear(4, 1)
learner = PrioritizedLearner(model, torch.optim.SGD(model.parameters(), lr=0.1))
for i in range(8):
    learner.add(torch.randn(4), torch.randn(1))
print([learner.step() for _ in range(3)])
