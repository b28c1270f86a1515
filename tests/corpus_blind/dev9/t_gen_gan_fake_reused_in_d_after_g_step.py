# corpus: GAN module trains G first with retain_graph=True, steps G, then feeds the same non-detached fake into D's loss; D's backward re-enters G's graph whose weights the G step changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/Lightning-AI/tutorials/pull/357
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GANConfig:
    latent_dim: int = 8
    img_dim: int = 16
    batch_size: int = 12
    lr: float = 2e-4
    b1: float = 0.5
    b2: float = 0.999
    steps: int = 3


class Generator(nn.Module):
    def __init__(self, latent_dim, img_dim):
        super().__init__()
        self.model = nn.Sequential(
            nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2),
            nn.Linear(32, img_dim), nn.Tanh(),
        )

    def forward(self, z):
        return self.model(z)


class Discriminator(nn.Module):
    def __init__(self, img_dim):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(img_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, img):
        return self.model(img)


class GAN:
    """Manual-optimization GAN: one generator forward per batch, shared by both steps."""

    def __init__(self, cfg: GANConfig):
        self.cfg = cfg
        self.generator = Generator(cfg.latent_dim, cfg.img_dim)
        self.discriminator = Discriminator(cfg.img_dim)
        betas = (cfg.b1, cfg.b2)
        self.opt_g = torch.optim.Adam(self.generator.parameters(), lr=cfg.lr, betas=betas)
        self.opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=cfg.lr, betas=betas)
        self.generated_imgs = None

    @staticmethod
    def adversarial_loss(y_hat, y):
        return F.binary_cross_entropy_with_logits(y_hat, y)

    def training_step(self, imgs):
        z = torch.randn(imgs.size(0), self.cfg.latent_dim)
        self.generated_imgs = self.generator(z)

        # train generator
        valid = torch.ones(imgs.size(0), 1)
        g_loss = self.adversarial_loss(self.discriminator(self.generated_imgs), valid)
        self.opt_g.zero_grad()
        g_loss.backward(retain_graph=True)
        self.opt_g.step()

        # train discriminator on the same generated batch
        fake = torch.zeros(imgs.size(0), 1)
        real_loss = self.adversarial_loss(self.discriminator(imgs), valid)
        fake_loss = self.adversarial_loss(self.discriminator(self.generated_imgs), fake)  # expect: GG105
        d_loss = (real_loss + fake_loss) / 2
        self.opt_d.zero_grad()
        d_loss.backward()  # also: GG105
        self.opt_d.step()
        return {"g_loss": g_loss.item(), "d_loss": d_loss.item()}


def main():
    torch.manual_seed(0)
    cfg = GANConfig()
    gan = GAN(cfg)
    for step in range(cfg.steps):
        imgs = torch.rand(cfg.batch_size, cfg.img_dim) * 2 - 1
        logs = gan.training_step(imgs)
        print(step, logs)


if __name__ == "__main__":
    main()
