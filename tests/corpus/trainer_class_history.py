# corpus: small Trainer class whose fit() keeps the loss tensors on self for a learning-curve report
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model: nn.Module, lr: float) -> None:
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.history = []

    def fit(self, x, y, steps: int) -> None:
        for _ in range(steps):
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.history.append(loss)  # expect: GG301

    def report(self) -> None:
        curve = [round(v.item(), 3) for v in self.history]
        print("learning curve:", curve)


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
trainer = Trainer(net, 1e-2)
trainer.fit(torch.randn(12, 4), torch.randint(0, 3, (12,)), steps=5)
trainer.report()
assert all(h.grad_fn is not None for h in trainer.history)  # ground truth: graphs kept alive
