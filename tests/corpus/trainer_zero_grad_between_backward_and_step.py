# corpus: a Trainer's train_epoch calls self.optimizer.zero_grad() after the backward and before the step, so every step applies zero gradients and the model never trains
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model: nn.Module, lr: float = 0.1) -> None:
        self.model = model
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def train_epoch(self, batches):
        for x, y in batches:
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.zero_grad()  # expect: GG201
            self.optimizer.step()


torch.manual_seed(0)
model = nn.Linear(3, 1)
before = model.weight.detach().clone()
Trainer(model).train_epoch([(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(3)])
assert torch.equal(before, model.weight.detach())  # the weights never moved
