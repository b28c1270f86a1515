# corpus: trainer calls loss.detach() as a bare statement before appending the loss to its history, so the history keeps every graph
# source: https://github.com/pytorch/examples/pull/731
from collections import defaultdict

import torch
import torch.nn as nn


class MLPRegressor(nn.Module):
    def __init__(self, d_in=8, d_hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(d_hidden, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


class Trainer:
    def __init__(self, model, train_loader, val_loader, lr=1e-3):
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = defaultdict(list)

    def train_one_epoch(self):
        self.model.train()
        for x, y in self.train_loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            loss.detach()  # expect: GG112
            self.history["train_loss"].append(loss)  # expect: GG301

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total, n = 0.0, 0
        for x, y in self.val_loader:
            total += self.criterion(self.model(x), y).item() * len(y)
            n += len(y)
        self.history["val_loss"].append(total / n)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_one_epoch()
            self.validate()
            last = self.history["train_loss"][-1]
            print(f"epoch {epoch}: train {last:.4f} val {self.history['val_loss'][-1]:.4f}")


def main():
    torch.manual_seed(0)
    make = lambda n: [(torch.randn(16, 8), torch.randn(16)) for _ in range(n)]
    trainer = Trainer(MLPRegressor(), make(5), make(2))
    trainer.fit(epochs=2)
    return trainer


if __name__ == "__main__":
    trainer = main()
    # ground truth: the "detached" losses stored in the history still carry their graphs
    assert len(trainer.history["train_loss"]) == 10
    assert all(l.grad_fn is not None for l in trainer.history["train_loss"])
