# corpus: a GradAlign-style regulariser compares input gradients (taken without create_graph) after masking out zero rows; the cosine term it adds to the loss is a constant, so it trains nothing
import torch
import torch.nn as nn
import torch.nn.functional as F


def input_grad(model, x, y):
    delta = torch.zeros_like(x, requires_grad=True)
    loss = F.cross_entropy(model(x + delta), y)
    return torch.autograd.grad(loss, delta)[0]  # expect: GG202


def grad_align_reg(model, x, y):
    g1 = input_grad(model, x, y)
    g2 = input_grad(model, x + 0.01 * torch.randn_like(x), y)
    keep = (g1.norm(dim=1) > 0) & (g2.norm(dim=1) > 0)
    return 1.0 - F.cosine_similarity(g1[keep], g2[keep]).mean()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(6, 5), torch.randint(0, 3, (6,))
reg = grad_align_reg(model, x, y)
loss = F.cross_entropy(model(x), y) + 0.2 * reg
optimizer.zero_grad()
loss.backward()
optimizer.step()
assert not reg.requires_grad  # the regulariser contributes no gradient
