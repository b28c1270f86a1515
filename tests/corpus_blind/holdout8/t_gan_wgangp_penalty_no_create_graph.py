# corpus: WGAN-GP trainer on 1-D signals whose gradient_penalty helper calls autograd.grad without create_graph=True, so the penalty added to the critic loss is a constant and never regularises the critic
# source: https://github.com/kuc2477/pytorch-wgan-gp/issues/1
import argparse

import torch
import torch.nn as nn
from torch import autograd


class Generator(nn.Module):
    def __init__(self, z_size, signal_len):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(z_size, 64), nn.ReLU(), nn.Linear(64, signal_len), nn.Tanh())

    def forward(self, z):
        return self.fc(z)


class Critic(nn.Module):
    def __init__(self, signal_len):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(signal_len, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x):
        return self.fc(x)


class WGANGP:
    def __init__(self, cfg):
        self.cfg = cfg
        self.generator = Generator(cfg.z_size, cfg.signal_len)
        self.critic = Critic(cfg.signal_len)
        self.g_optimizer = torch.optim.Adam(self.generator.parameters(), lr=cfg.lr, betas=(0.5, 0.9))
        self.c_optimizer = torch.optim.Adam(self.critic.parameters(), lr=cfg.lr, betas=(0.5, 0.9))

    def gradient_penalty(self, x, g):
        assert x.size() == g.size()
        a = torch.rand(x.size(0), 1)
        interpolated = (a * x + (1 - a) * g).requires_grad_(True)
        c = self.critic(interpolated)
        gradients = autograd.grad(c, interpolated, grad_outputs=torch.ones_like(c), retain_graph=True)[0]  # expect: GG202
        return self.cfg.lamda * ((1 - (gradients + 1e-16).norm(2, dim=1)) ** 2).mean()

    def c_loss(self, x, g):
        return -(self.critic(x).mean() - self.critic(g).mean())

    def train_step(self, real):
        for _ in range(self.cfg.d_trains_per_g_train):
            z = torch.randn(real.size(0), self.cfg.z_size)
            with torch.no_grad():
                g = self.generator(z)
            c_loss = self.c_loss(real, g)
            gp = self.gradient_penalty(real, g)
            c_loss_gp = c_loss + gp
            self.c_optimizer.zero_grad()
            c_loss_gp.backward()
            self.c_optimizer.step()

        z = torch.randn(real.size(0), self.cfg.z_size)
        g_loss = -self.critic(self.generator(z)).mean()
        self.g_optimizer.zero_grad()
        g_loss.backward()
        self.g_optimizer.step()
        return {"c_loss": c_loss.item(), "gp": gp.item(), "g_loss": g_loss.item()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--z_size", type=int, default=8)
    parser.add_argument("--signal_len", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--lamda", type=float, default=10.0)
    parser.add_argument("--d_trains_per_g_train", type=int, default=5)
    cfg = parser.parse_args([])
    torch.manual_seed(0)
    gan = WGANGP(cfg)
    t = torch.linspace(0, 6.28, cfg.signal_len)
    for it in range(3):
        real = torch.sin(t + torch.rand(16, 1) * 6.28)
        print(it, gan.train_step(real))


if __name__ == "__main__":
    main()
