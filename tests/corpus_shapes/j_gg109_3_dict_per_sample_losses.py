# corpus: per-sample cross-entropy and regression losses kept in a dict, combined elementwise with per-task weights via zip, and the unreduced total is backpropagated
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: docs/rules/GG109.md (shape: 3, 6)
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(8, 3), nn.Linear(8, 1)])

    def forward(self, x):
        h = self.body(x)
        return tuple(head(h) for head in self.heads)


torch.manual_seed(0)
model = TwoHead()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(5, 6)
labels = torch.tensor([0, 2, 1, 1, 0])
target = torch.randn(5)
for step in range(2):
    logits, reg = model(x)
    losses = {
        "cls": F.cross_entropy(logits, labels, reduction="none"),
        "reg": F.mse_loss(reg.squeeze(1), target, reduction="none"),
    }
    weights = {"cls": 1.0, "reg": 0.5}
    total = sum(weights[k] * v for k, v in zip(weights, losses.values()))
    opt.zero_grad()
    total.backward()  # expect: GG109
    opt.step()
