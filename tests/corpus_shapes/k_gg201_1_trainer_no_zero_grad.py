# corpus: Trainer whose train_step() backpropagates and whose update() helper steps, but nothing ever clears the gradients, so each step applies the sum of all previous gradients (silent)
# source: docs/rules/GG201.md (shape: 1)
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
        return self.criterion(self.model(x), y)

    def update(self):
        self.optimizer.step()  # also: GG201

    def train_step(self, batch):
        loss = self.compute_loss(batch)
        loss.backward()  # expect: GG201
        self.update()
        return loss.item()

    def fit(self, batches, epochs=3):
        for epoch in range(epochs):
            for batch in batches:
                self.history.append(self.train_step(batch))
        return self.history


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.01), nn.MSELoss())
    batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(2)]
    trainer.fit(batches)
    return trainer, batches


if __name__ == "__main__":
    main()
