# corpus: DRAGAN-style discriminator penalty around perturbed real data, computed without create_graph=True
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

D = nn.Sequential(nn.Linear(3, 24), nn.LeakyReLU(0.2), nn.Linear(24, 1))
G = nn.Sequential(nn.Linear(2, 24), nn.ReLU(), nn.Linear(24, 3))
d_opt = torch.optim.Adam(D.parameters(), lr=2e-4)
g_opt = torch.optim.Adam(G.parameters(), lr=2e-4)


def train_step(real):
    fake = G(torch.randn(real.size(0), 2))
    d_opt.zero_grad()
    d_loss = F.softplus(D(fake.detach())).mean() + F.softplus(-D(real)).mean()
    x_hat = (real + 0.5 * real.std() * torch.rand_like(real)).requires_grad_(True)
    grad = torch.autograd.grad(D(x_hat).sum(), x_hat)[0]  # expect: GG202
    penalty = 10.0 * ((grad.norm(2, dim=1) - 1) ** 2).mean()
    (d_loss + penalty).backward()
    d_opt.step()

    g_opt.zero_grad()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    g_opt.step()
    return d_loss.item(), g_loss.item(), penalty


for it in range(3):
    d_val, g_val, pen = train_step(torch.randn(8, 3))
    print(it, d_val, g_val, pen.item())
assert not pen.requires_grad  # ground truth: the penalty carries no gradient
