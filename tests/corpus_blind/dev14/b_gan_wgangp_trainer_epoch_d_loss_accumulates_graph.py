# corpus: WGAN-GP trainer with a gradient penalty from torch.autograd.grad(create_graph=True): the per-epoch critic and generator loss meters sum the loss tensors themselves (running_d += d_loss), so every iteration's graph, double-backward graph included, stays alive and memory grows each epoch until .item() is added
# source: https://github.com/pytorch/pytorch/issues/64586
import torch
import torch.nn as nn
from torch import autograd


class Critic(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


class Generator(nn.Module):
    def __init__(self, z_dim=8, dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, dim))

    def forward(self, z):
        return self.net(z)


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interpolates = critic(interpolates)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones_like(d_interpolates),
                              create_graph=True, retain_graph=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


class WGANGPTrainer:
    def __init__(self, z_dim=8, n_critic=3, lambda_gp=10.0):
        self.G, self.D = Generator(z_dim), Critic()
        self.z_dim, self.n_critic, self.lambda_gp = z_dim, n_critic, lambda_gp
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=1e-4, betas=(0.0, 0.9))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=1e-4, betas=(0.0, 0.9))

    def critic_step(self, real):
        fake = self.G(torch.randn(real.size(0), self.z_dim)).detach()
        d_loss = self.D(fake).mean() - self.D(real).mean() + self.lambda_gp * gradient_penalty(self.D, real, fake)
        self.opt_d.zero_grad()
        d_loss.backward()
        self.opt_d.step()
        return d_loss

    def generator_step(self, batch_size):
        g_loss = -self.D(self.G(torch.randn(batch_size, self.z_dim))).mean()
        self.opt_g.zero_grad()
        g_loss.backward()
        self.opt_g.step()
        return g_loss

    def train_epoch(self, loader):
        running_d, running_g, n = 0.0, 0.0, 0
        for i, real in enumerate(loader):
            d_loss = self.critic_step(real)
            running_d += d_loss  # expect: GG301
            if i % self.n_critic == 0:
                running_g += self.generator_step(real.size(0)).item()
                n += 1
        return running_d / len(loader), running_g / max(n, 1)

    def fit(self, loader, epochs=2):
        history = []
        for epoch in range(epochs):
            d_avg, g_avg = self.train_epoch(loader)
            history.append((d_avg, g_avg))
            print(f"epoch {epoch} d_loss {float(d_avg):.4f} g_loss {g_avg:.4f}")
        return history


def main():
    torch.manual_seed(0)
    loader = [torch.randn(16, 16) for _ in range(6)]
    return WGANGPTrainer().fit(loader)


if __name__ == "__main__":
    main()
