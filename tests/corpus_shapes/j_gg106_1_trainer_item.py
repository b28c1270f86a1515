# corpus: Trainer.compute_loss returns loss.item() so the history list gets floats, and train_step then calls .backward() on that float
# raises: AttributeError: 'float' object has no attribute 'backward'
# source: docs/rules/GG106.md (shape: 1)
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizer, criterion):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.history = []

    def compute_loss(self, batch):
        x, y = batch
        return self.criterion(self.model(x), y).item()  # also: GG106

    def train_step(self, batch):
        self.optimizer.zero_grad()
        loss = self.compute_loss(batch)
        self.history.append(loss)
        loss.backward()  # expect: GG106
        self.optimizer.step()

    def fit(self, batches, epochs=2):
        for epoch in range(epochs):
            for batch in batches:
                self.train_step(batch)
        return self.history


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1), nn.MSELoss())
print(trainer.fit([(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(2)]))
