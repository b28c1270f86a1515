# corpus: correct: a GANBatch dataclass carries real and fake; the D step scores batch.fake.detach(), so the G step can still backpropagate through batch.fake
# source: docs/rules/GG105.md (shape: 4, 2)
from dataclasses import dataclass

import torch
import torch.nn as nn

bce = nn.BCEWithLogitsLoss()


@dataclass
class GANBatch:
    real: torch.Tensor
    fake: torch.Tensor


def d_step(D, opt_d, batch):
    n = batch.real.size(0)
    d_loss = bce(D(batch.real), torch.ones(n, 1)) + bce(D(batch.fake.detach()), torch.zeros(n, 1))
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    return d_loss.item()


def g_step(D, opt_g, batch):
    g_loss = bce(D(batch.fake), torch.ones(batch.fake.size(0), 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    return g_loss.item()


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
    for step in range(2):
        batch = GANBatch(real=torch.randn(16, 2), fake=G(torch.randn(16, 4)))
        print(d_step(D, opt_d, batch), g_step(D, opt_g, batch))


if __name__ == "__main__":
    main()
