# corpus: multi-task trainer with a shared backbone and a dict of heads sums the weighted task losses into one total and calls backward once; per-task values are logged with .item() (correct)
# source: https://learn-pytorch.oneoffcoder.com/multi-task-learning.html
import torch
import torch.nn as nn


class MultiTaskModel(nn.Module):
    def __init__(self, in_dim=6, hidden=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({"cls": nn.Linear(hidden, 2), "reg": nn.Linear(hidden, 1)})

    def forward(self, x):
        features = self.backbone(x)
        return {name: head(features) for name, head in self.heads.items()}


class MultiTaskTrainer:
    def __init__(self, model, weights):
        self.model = model
        self.weights = weights
        self.criteria = {"cls": nn.CrossEntropyLoss(), "reg": nn.MSELoss()}
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=0.03)
        self.history = {name: [] for name in weights}

    def task_losses(self, outputs, targets):
        return {name: self.criteria[name](outputs[name], targets[name]) for name in outputs}

    def training_step(self, x, targets):
        self.optimizer.zero_grad(set_to_none=True)
        losses = self.task_losses(self.model(x), targets)
        total = sum(self.weights[name] * loss for name, loss in losses.items())
        total.backward()
        self.optimizer.step()
        for name, loss in losses.items():
            self.history[name].append(loss.item())
        return total.item()

    def fit(self, x, targets, steps=30):
        for step in range(steps):
            total = self.training_step(x, targets)
            if step in (0, steps - 1):
                print(step, round(total, 4), {k: round(v[-1], 4) for k, v in self.history.items()})


def main():
    torch.manual_seed(43)
    x = torch.randn(64, 6)
    targets = {
        "cls": (x[:, 0] + x[:, 1] > 0).long(),
        "reg": (x[:, 2] - x[:, 3]).unsqueeze(1),
    }
    trainer = MultiTaskTrainer(MultiTaskModel(), {"cls": 1.0, "reg": 0.5})
    trainer.fit(x, targets)


if __name__ == "__main__":
    main()
