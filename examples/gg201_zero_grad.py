# gradguard reports GG201 (zero-grad-missing-or-misplaced) on line 15.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
x = torch.randn(4, 6)
y = torch.randint(0, 3, (4,))
delta = torch.zeros_like(x, requires_grad=True)
deltas, used = [], []
for step in range(3):
    deltas.append(delta.detach().clone())
    loss = F.cross_entropy(model(x + delta), y)
    loss.backward()
    used.append(delta.grad.clone())
    delta.data = delta.data + 0.01 * delta.grad.sign()


def fresh_grad(d):
    d = d.clone().requires_grad_(True)
    return torch.autograd.grad(F.cross_entropy(model(x + d), y), d)[0]
