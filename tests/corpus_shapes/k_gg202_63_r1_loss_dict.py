# corpus: Discriminator nn.Module with an r1_penalty() method using autograd.grad without create_graph; losses kept in a dict and backpropagated one by one, and the R1 term's backward fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: docs/rules/GG202.md (shape: 6, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Discriminator(nn.Module):
    def __init__(self, dim=2, hidden=16) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, hidden), nn.LeakyReLU(0.2))
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(self.body(x))

    def r1_penalty(self, real):
        real = real.detach().requires_grad_(True)
        logits = self(real)
        grads, = torch.autograd.grad(logits.sum(), real)  # expect: GG202
        return grads.pow(2).sum(dim=1).mean()


torch.manual_seed(0)
D = Discriminator()
d_opt = torch.optim.Adam(D.parameters(), lr=1e-3)
gamma = 10.0
for step in range(2):
    real = torch.randn(8, 2)
    fake = torch.randn(8, 2) * 0.5
    losses = {
        "adv": F.softplus(D(fake)).mean() + F.softplus(-D(real)).mean(),
        "r1": 0.5 * gamma * D.r1_penalty(real),
    }
    d_opt.zero_grad()
    for name, loss in losses.items():
        loss.backward()  # also: GG202
    d_opt.step()
