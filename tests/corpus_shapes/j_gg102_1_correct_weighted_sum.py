# corpus: correct: multi-task Trainer keeps per-task losses in a dict from one shared encoder and backpropagates their weighted sum once
# source: docs/rules/GG102.md (shape: 1, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, encoder, heads, optimizer, weights):
        self.encoder = encoder
        self.heads = heads
        self.optimizer = optimizer
        self.weights = weights

    def compute_losses(self, batch):
        x, labels, target = batch
        h = torch.relu(self.encoder(x))
        return {
            "cls": F.cross_entropy(self.heads["cls"](h), labels),
            "reg": F.mse_loss(self.heads["reg"](h), target),
        }

    def train_step(self, batch):
        losses = self.compute_losses(batch)
        total = sum(self.weights[k] * v for k, v in losses.items())
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()}

    def fit(self, batches, epochs=2):
        return [self.train_step(b) for _ in range(epochs) for b in batches]


torch.manual_seed(0)
encoder = nn.Linear(6, 8)
heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 1)})
opt = torch.optim.SGD([*encoder.parameters(), *heads.parameters()], lr=0.1)
batches = [(torch.randn(5, 6), torch.tensor([0, 1, 2, 1, 0]), torch.randn(5, 1)) for _ in range(2)]
trainer = Trainer(encoder, heads, opt, {"cls": 1.0, "reg": 0.5})
print(trainer.fit(batches)[-1])
