# corpus: GAN trainer that must update the generator before the discriminator: both losses are computed from one generator output, loss_d feeds the generator output to D without .detach(), and after loss_g.backward() frees the generator graph, loss_d.backward() runs back through it
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://whosebug.com/question/5232549/How-does-PyTorch-s-loss-backward-work-when-retain-graph-True-is-specified
import random
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


@dataclass
class GANConfig:
    latent_dim: int = 8
    data_dim: int = 12
    hidden: int = 32
    batch_size: int = 16
    lr: float = 2e-4
    steps: int = 3


class Generator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(cfg.latent_dim, cfg.hidden), nn.ReLU(),
                                 nn.Linear(cfg.hidden, cfg.data_dim), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(cfg.data_dim, cfg.hidden), nn.LeakyReLU(0.2),
                                 nn.Linear(cfg.hidden, 1))

    def forward(self, x):
        return self.net(x)


class GANTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.generator = Generator(cfg)
        self.discriminator = Discriminator(cfg)
        self.optim_g = torch.optim.Adam(self.generator.parameters(), lr=cfg.lr, betas=(0.5, 0.999))
        self.optim_d = torch.optim.Adam(self.discriminator.parameters(), lr=cfg.lr, betas=(0.5, 0.999))
        self.criterion = nn.BCEWithLogitsLoss()
        self.history = {"loss_g": [], "loss_d": []}

    def sample_real(self):
        return torch.sin(torch.linspace(0, 3.14, self.cfg.data_dim)).repeat(self.cfg.batch_size, 1) \
            + 0.05 * torch.randn(self.cfg.batch_size, self.cfg.data_dim)

    def compute_losses(self, real):
        z = torch.randn(real.size(0), self.cfg.latent_dim)
        fake = self.generator(z)
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        loss_g = self.criterion(self.discriminator(fake), ones)
        d_real = self.criterion(self.discriminator(real), ones)
        d_fake = self.criterion(self.discriminator(fake), zeros)  # expect: GG105
        loss_d = d_real + d_fake
        return loss_g, loss_d

    def train_step(self):
        real = self.sample_real()
        loss_g, loss_d = self.compute_losses(real)

        self.optim_g.zero_grad()
        loss_g.backward()
        self.optim_g.step()

        self.optim_d.zero_grad()
        loss_d.backward()  # also: GG105
        self.optim_d.step()

        self.history["loss_g"].append(loss_g.item())
        self.history["loss_d"].append(loss_d.item())

    def fit(self):
        for step in range(self.cfg.steps):
            self.train_step()
        return self.history


def main():
    trainer = GANTrainer(GANConfig())
    print(trainer.fit())


if __name__ == "__main__":
    main()
