# corpus: a PGD attack helper reuses one perturbation tensor across steps and reads delta.grad each step without clearing it, so each step follows the running sum of all earlier gradients
import torch
import torch.nn as nn
import torch.nn.functional as F


def pgd(model, x, y, eps=0.1, alpha=0.02, steps=3, trace=None):
    delta = torch.zeros_like(x).uniform_(-eps, eps)
    delta.requires_grad_(True)
    for _ in range(steps):
        loss = F.cross_entropy(model(x + delta), y)
        loss.backward()  # expect: GG201
        grad = delta.grad.detach()
        if trace is not None:
            trace.append((delta.detach().clone(), grad.clone()))
        delta.data = (delta + alpha * grad.sign()).clamp(-eps, eps)
    return delta.detach()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
x, y = torch.randn(4, 6), torch.randint(0, 3, (4,))
trace = []
pgd(model, x, y, trace=trace)
d = trace[1][0].clone().requires_grad_(True)
fresh = torch.autograd.grad(F.cross_entropy(model(x + d), y), d)[0]
assert not torch.allclose(trace[1][1], fresh)
