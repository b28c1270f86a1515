# corpus: two generators under one optimizer (itertools.chain); the G step retains its graph and steps, then the D step feeds the same fake without detach
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import itertools

import torch
import torch.nn as nn

torch.manual_seed(0)


def generator(dim):
    return nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, dim))


def discriminator(dim):
    return nn.Sequential(nn.Linear(dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))


G_ab, G_ba = generator(6), generator(6)
D_b = discriminator(6)
opt_g = torch.optim.Adam(itertools.chain(G_ab.parameters(), G_ba.parameters()), lr=2e-4)
opt_d = torch.optim.Adam(D_b.parameters(), lr=2e-4)
mse = nn.MSELoss()

for step in range(2):
    real_a, real_b = torch.randn(4, 6), torch.randn(4, 6)
    fake_b = G_ab(real_a)
    loss_g = mse(D_b(fake_b), torch.ones(4, 1)) + (G_ba(fake_b) - real_a).abs().mean()
    opt_g.zero_grad()
    loss_g.backward(retain_graph=True)
    opt_g.step()
    loss_d = mse(D_b(real_b), torch.ones(4, 1)) + mse(D_b(fake_b), torch.zeros(4, 1))  # expect: GG105
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
