# corpus: a trainer logs every loss tensor into a defaultdict(list) history, keeping each step's whole graph alive
import torch
import torch.nn as nn
from collections import defaultdict


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.history = defaultdict(list)

    def train_step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.history["train_loss"].append(loss)  # expect: GG301
        self.history["lr"].append(0.1)


torch.manual_seed(0)
trainer = Trainer()
for _ in range(3):
    trainer.train_step(torch.randn(4, 5), torch.randn(4, 1))
assert all(t.grad_fn is not None for t in trainer.history["train_loss"])
