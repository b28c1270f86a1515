# corpus: a Trainer's train_epoch clears self.optimizer's gradients before each backward and steps after it
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model: nn.Module, lr: float = 0.1) -> None:
        self.model = model
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def train_epoch(self, batches):
        for x, y in batches:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()


torch.manual_seed(0)
model = nn.Linear(3, 1)
before = model.weight.detach().clone()
Trainer(model).train_epoch([(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(3)])
assert not torch.equal(before, model.weight.detach())
