# corpus: a PGD attack helper reuses one perturbation tensor across steps and zeroes delta.grad after each step (correct)
import torch
import torch.nn as nn
import torch.nn.functional as F


def pgd(model, x, y, eps=0.1, alpha=0.02, steps=3, trace=None):
    delta = torch.zeros_like(x).uniform_(-eps, eps)
    delta.requires_grad_(True)
    for _ in range(steps):
        loss = F.cross_entropy(model(x + delta), y)
        loss.backward()
        grad = delta.grad.detach()
        if trace is not None:
            trace.append((delta.detach().clone(), grad.clone()))
        delta.data = (delta + alpha * grad.sign()).clamp(-eps, eps)
        delta.grad.zero_()
    return delta.detach()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
x, y = torch.randn(4, 6), torch.randint(0, 3, (4,))
trace = []
pgd(model, x, y, trace=trace)
d = trace[1][0].clone().requires_grad_(True)
fresh = torch.autograd.grad(F.cross_entropy(model(x + d), y), d)[0]
assert torch.allclose(trace[1][1], fresh, atol=1e-6)
