# corpus: GAN module in the shape of the early Lightning GAN template (training_step per optimizer index, a small fit loop): the generator phase clears only the generator grads, and the discriminator phase never zeroes the discriminator grads, so D steps on gradients accumulated from g_loss and from every earlier batch
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/557
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, latent_dim=8, img_dim=16):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, img_dim), nn.Tanh())

    def forward(self, z):
        return self.model(z)


class Discriminator(nn.Module):
    def __init__(self, img_dim=16):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(img_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, img):
        return self.model(img)


class GAN(nn.Module):
    def __init__(self, latent_dim=8, lr=2e-4):
        super().__init__()
        self.latent_dim = latent_dim
        self.generator = Generator(latent_dim)
        self.discriminator = Discriminator()
        self.opt_g = torch.optim.Adam(self.generator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.generated_imgs = None

    @staticmethod
    def adversarial_loss(y_hat, y):
        return F.binary_cross_entropy(y_hat, y)

    def training_step(self, imgs, optimizer_i):
        if optimizer_i == 0:
            z = torch.randn(imgs.shape[0], self.latent_dim)
            self.generated_imgs = self.generator(z)
            valid = torch.ones(imgs.size(0), 1)
            g_loss = self.adversarial_loss(self.discriminator(self.generated_imgs), valid)
            return OrderedDict({"loss": g_loss, "log": {"g_loss": g_loss.item()}})
        valid = torch.ones(imgs.size(0), 1)
        real_loss = self.adversarial_loss(self.discriminator(imgs), valid)
        fake = torch.zeros(imgs.size(0), 1)
        fake_loss = self.adversarial_loss(self.discriminator(self.generated_imgs.detach()), fake)
        d_loss = (real_loss + fake_loss) / 2
        return OrderedDict({"loss": d_loss, "log": {"d_loss": d_loss.item()}})

    def run_generator_phase(self, imgs):
        self.opt_g.zero_grad()
        out = self.training_step(imgs, 0)
        out["loss"].backward()
        self.opt_g.step()
        return out["log"]

    def run_discriminator_phase(self, imgs):
        out = self.training_step(imgs, 1)
        out["loss"].backward()  # expect: GG201
        self.opt_d.step()
        return out["log"]


def fit(model, loader, max_epochs=2):
    history = []
    for epoch in range(max_epochs):
        for batch_idx, imgs in enumerate(loader):
            logs = {}
            logs.update(model.run_generator_phase(imgs))
            logs.update(model.run_discriminator_phase(imgs))
            history.append(logs)
        print(f"epoch {epoch} g_loss {history[-1]['g_loss']:.4f} d_loss {history[-1]['d_loss']:.4f}")
    return history


def main():
    torch.manual_seed(0)
    loader = [torch.randn(8, 16).tanh() for _ in range(4)]
    fit(GAN(), loader)


if __name__ == "__main__":
    main()
