# corpus: trainer keeps a ModelEMA deep copy whose parameters still require grad and updates them with in-place mul_/add_ outside torch.no_grad(), which autograd refuses on a leaf
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/ultralytics/ultralytics/pull/25315
import math
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelEMA:
    """Keeps a moving average of everything in the model's parameters."""

    def __init__(self, model, decay=0.9999, tau=200, updates=0):
        self.ema = deepcopy(model).eval()
        self.updates = updates
        self.decay = lambda x: decay * (1 - math.exp(-x / tau))

    def update(self, model):
        self.updates += 1
        d = self.decay(self.updates)
        for ema_v, model_v in zip(self.ema.parameters(), model.parameters()):
            ema_v.mul_(d).add_(model_v.detach(), alpha=1 - d)  # expect: GG108


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        return self.fc(x.mean(dim=(2, 3)))


class Trainer:
    def __init__(self, model, lr=0.01):
        self.model = model
        self.ema = ModelEMA(model)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True)
        self.criterion = nn.CrossEntropyLoss()

    def optimizer_step(self):
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.ema.update(self.model)

    def train_epoch(self, loader):
        self.model.train()
        running = 0.0
        for imgs, labels in loader:
            loss = self.criterion(self.model(imgs), labels)
            loss.backward()
            self.optimizer_step()
            running += loss.item()
        return running / len(loader)

    @torch.no_grad()
    def validate(self, loader):
        correct = sum((self.ema.ema(x).argmax(1) == y).sum().item() for x, y in loader)
        return correct / sum(len(y) for _, y in loader)


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(8, 3, 8, 8), torch.randint(0, 4, (8,))) for _ in range(3)]
    trainer = Trainer(Classifier())
    for epoch in range(2):
        print(epoch, trainer.train_epoch(loader), trainer.validate(loader))


if __name__ == "__main__":
    main()
