# corpus: Trainer whose train_step() returns the loss tensor and whose fit() sums it into epoch_loss, keeping every step's graph alive (silent memory growth)
# source: docs/rules/GG301.md (shape: 1)
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizer, criterion):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.epoch_losses = []

    def compute_loss(self, batch):
        x, y = batch
        return self.criterion(self.model(x), y)

    def train_step(self, batch):
        self.optimizer.zero_grad()
        loss = self.compute_loss(batch)
        loss.backward()
        self.optimizer.step()
        return loss

    def fit(self, batches, epochs=2):
        for epoch in range(epochs):
            epoch_loss = 0.0
            for batch in batches:
                loss = self.train_step(batch)
                epoch_loss += loss  # expect: GG301
            self.epoch_losses.append(epoch_loss / len(batches))
        return self.epoch_losses


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.05), nn.MSELoss())
    trainer.fit([(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)])
    return trainer


if __name__ == "__main__":
    main()
