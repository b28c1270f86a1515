# corpus: multilabel Trainer.compute_loss zeroes an ignored class column by index assignment into the sigmoid output that sigmoid saved for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG107.md (shape: 1)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, ignore_class=0):
        self.model = model
        self.optimizer = optimizer
        self.ignore_class = ignore_class

    def compute_loss(self, batch):
        x, targets = batch
        probs = torch.sigmoid(self.model(x))
        probs[:, self.ignore_class] = 0.0  # expect: GG107
        targets = targets.clone()
        targets[:, self.ignore_class] = 0.0
        return F.binary_cross_entropy(probs.clamp(1e-6, 1 - 1e-6), targets)

    def train_step(self, batch):
        loss = self.compute_loss(batch)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG107
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        return [self.train_step(b) for b in batches]


torch.manual_seed(0)
model = nn.Linear(4, 3)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
print(trainer.fit([(torch.randn(6, 4), (torch.rand(6, 3) > 0.5).float()) for _ in range(2)]))
