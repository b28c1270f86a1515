# corpus: GAN trainer whose loss function builds the discriminator loss on g(z).detach() and the non-saturating generator loss on a fresh D(g(z)) pass, then steps D and G one after the other (correct)
# source: https://php.bkmy88.com/faq/1575425.html
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, z_dim=8, x_dim=16):
        super().__init__()
        self.z_dim = z_dim
        self.net = nn.Sequential(nn.Linear(z_dim, 64), nn.ReLU(), nn.Linear(64, x_dim), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, x_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x_dim, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def loss_nonsaturating_d(d, g, x_real):
    z = torch.randn(x_real.shape[0], g.z_dim)
    gz = g(z).detach()
    real_label = torch.ones(x_real.shape[0])
    fake_label = torch.zeros(x_real.shape[0])
    d_loss = F.binary_cross_entropy_with_logits(d(x_real), real_label) + \
        F.binary_cross_entropy_with_logits(d(gz), fake_label)
    return d_loss


def loss_nonsaturating_g(d, g, x_real):
    z = torch.randn(x_real.shape[0], g.z_dim)
    dgz = d(g(z))
    return F.binary_cross_entropy_with_logits(dgz, torch.ones(x_real.shape[0]))


def train(d, g, d_optimizer, g_optimizer, batches, epochs):
    for epoch in range(epochs):
        for x_real in batches:
            d_loss = loss_nonsaturating_d(d, g, x_real)
            d_optimizer.zero_grad()
            d_loss.backward()
            d_optimizer.step()

            g_loss = loss_nonsaturating_g(d, g, x_real)
            g_optimizer.zero_grad()
            g_loss.backward()
            g_optimizer.step()
        print(f"epoch {epoch} d_loss {d_loss.item():.3f} g_loss {g_loss.item():.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=2e-4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    g, d = Generator(), Discriminator()
    g_optimizer = torch.optim.Adam(g.parameters(), lr=args.lr, betas=(0.5, 0.999))
    d_optimizer = torch.optim.Adam(d.parameters(), lr=args.lr, betas=(0.5, 0.999))
    before = g.net[0].weight.detach().clone()
    train(d, g, d_optimizer, g_optimizer, [torch.rand(16, 16) * 2 - 1 for _ in range(3)], epochs=2)
    assert not torch.equal(before, g.net[0].weight)


if __name__ == "__main__":
    main()
