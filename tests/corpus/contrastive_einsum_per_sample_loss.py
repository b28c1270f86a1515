# corpus: a BYOL-style loss compares predictions and targets through einsum and sums over the last dimension only, leaving one loss per sample, which is then backpropagated without a gradient
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.online = nn.Sequential(nn.Linear(12, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.target = nn.Sequential(nn.Linear(12, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, view_a, view_b):
        p = F.normalize(self.online(view_a), dim=-1)
        z = F.normalize(self.target(view_b), dim=-1).detach()
        sim = torch.einsum("nc,mc->nm", p, z)
        labels = torch.eye(8)
        return 2 - 2 * (labels * sim).sum(dim=-1)


torch.manual_seed(0)
learner = Learner()
optimizer = torch.optim.SGD(learner.online.parameters(), lr=0.05)
loss = learner(torch.randn(8, 12), torch.randn(8, 12))
optimizer.zero_grad()
loss.backward()  # expect: GG109
