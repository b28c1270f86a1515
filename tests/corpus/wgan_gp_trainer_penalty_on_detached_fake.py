# corpus: the same WGAN-GP trainer with the penalty interpolating the detached fake (create_graph=True keeps the penalty differentiable in the critic's weights); every critic backward walks its own graph
import torch
import torch.nn as nn


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.shape[0], 1)
    mixed = alpha * real + (1 - alpha) * fake
    mixed.requires_grad_(True)
    scores = critic(mixed)
    grads = torch.autograd.grad(scores, mixed, torch.ones_like(scores), create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


class Trainer:
    def __init__(self, n_critic: int = 3) -> None:
        self.netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
        self.netD = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.opt_g = torch.optim.Adam(self.netG.parameters(), lr=1e-4)
        self.opt_d = torch.optim.Adam(self.netD.parameters(), lr=1e-4)
        self.n_critic = n_critic

    def forward(self, z):
        self.fake = self.netG(z)

    def backward_d(self, real):
        fake = self.fake.detach()
        loss_d = self.netD(fake).mean() - self.netD(real).mean()
        loss_d = loss_d + 10 * gradient_penalty(self.netD, real, fake)
        loss_d.backward()

    def step(self, real, z):
        self.forward(z)
        for _ in range(self.n_critic):
            self.opt_d.zero_grad()
            self.backward_d(real)
            self.opt_d.step()
        self.opt_g.zero_grad()
        (-self.netD(self.fake).mean()).backward()
        self.opt_g.step()


torch.manual_seed(0)
trainer = Trainer()
for _ in range(2):
    trainer.step(torch.randn(8, 6), torch.randn(8, 4))
