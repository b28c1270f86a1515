# corpus: multi-task Trainer; train_step backpropagates the classification loss with retain_graph, steps the optimizer, then backpropagates the regression loss over the same forward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG111.md (shape: 1)
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoTaskNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh())
        self.cls = nn.Linear(8, 3)
        self.reg = nn.Linear(8, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls(h), self.reg(h)


class MultiTaskTrainer:
    def __init__(self, model, optimizer, reg_weight=0.5):
        self.model = model
        self.optimizer = optimizer
        self.reg_weight = reg_weight

    def compute_losses(self, batch):
        x, labels, targets = batch
        logits, value = self.model(x)
        return {
            "cls": F.cross_entropy(logits, labels),
            "reg": self.reg_weight * F.mse_loss(value, targets),
        }

    def train_step(self, batch):
        losses = self.compute_losses(batch)
        self.optimizer.zero_grad()
        losses["cls"].backward(retain_graph=True)
        self.optimizer.step()  # expect: GG111
        losses["reg"].backward()  # also: GG111
        return {k: v.item() for k, v in losses.items()}

    def fit(self, batches, epochs=2):
        for epoch in range(epochs):
            for batch in batches:
                self.train_step(batch)


def main():
    torch.manual_seed(0)
    model = TwoTaskNet()
    trainer = MultiTaskTrainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
    batches = [(torch.randn(16, 4), torch.randint(0, 3, (16,)), torch.randn(16, 1)) for _ in range(2)]
    trainer.fit(batches)


if __name__ == "__main__":
    main()
