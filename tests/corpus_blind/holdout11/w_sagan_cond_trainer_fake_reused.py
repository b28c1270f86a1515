# corpus: conditional SAGAN-style Trainer feeds the undetached fake batch to D in the D step, then reuses it for the G hinge loss; G's freed graph makes the G backward fail
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/voletiv/self-attention-GAN-pytorch/issues/4
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Config:
    z_dim: int = 4
    n_classes: int = 3
    img_dim: int = 6
    batch_size: int = 5
    total_step: int = 3
    g_lr: float = 1e-4
    d_lr: float = 4e-4


class Generator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.n_classes, cfg.z_dim)
        self.net = nn.Sequential(nn.Linear(cfg.z_dim, 16), nn.ReLU(), nn.Linear(16, cfg.img_dim), nn.Tanh())

    def forward(self, z, labels):
        return self.net(z * self.embed(labels))


class Discriminator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(cfg.img_dim, 16), nn.LeakyReLU(0.1))
        self.out = nn.Linear(16, 1)
        self.embed = nn.Embedding(cfg.n_classes, 16)

    def forward(self, x, labels):
        h = self.body(x)
        projection = (h * self.embed(labels)).sum(dim=1, keepdim=True)
        return self.out(h) + projection


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.G = Generator(cfg)
        self.D = Discriminator(cfg)
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), cfg.g_lr, betas=(0.0, 0.9))
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), cfg.d_lr, betas=(0.0, 0.9))
        self.history = {"d_loss": [], "g_loss": []}

    def sample_batch(self):
        real_images = torch.randn(self.cfg.batch_size, self.cfg.img_dim).clamp(-1, 1)
        real_labels = torch.randint(0, self.cfg.n_classes, (self.cfg.batch_size,))
        return real_images, real_labels

    def reset_grad(self):
        self.d_optimizer.zero_grad()
        self.g_optimizer.zero_grad()

    def train_step(self):
        real_images, real_labels = self.sample_batch()
        d_out_real = self.D(real_images, real_labels)
        d_loss_real = torch.relu(1.0 - d_out_real).mean()

        # Generate fake images for same real labels
        z = torch.randn(self.cfg.batch_size, self.cfg.z_dim)
        fake_images = self.G(z, real_labels)
        d_out_fake = self.D(fake_images, real_labels)  # expect: GG105
        d_loss_fake = torch.relu(1.0 + d_out_fake).mean()

        d_loss = d_loss_real + d_loss_fake
        self.reset_grad()
        d_loss.backward()
        self.d_optimizer.step()

        # ================== Train G ================== #
        g_out_fake = self.D(fake_images, real_labels)  # also: GG105
        g_loss = -g_out_fake.mean()
        self.reset_grad()
        g_loss.backward()  # also: GG105
        self.g_optimizer.step()
        return {"d_loss": d_loss.item(), "g_loss": g_loss.item()}

    def train(self):
        for step in range(self.cfg.total_step):
            losses = self.train_step()
            for name, value in losses.items():
                self.history[name].append(value)
        return self.history


def main():
    torch.manual_seed(0)
    trainer = Trainer(Config())
    history = trainer.train()
    print("final d_loss", history["d_loss"][-1], "g_loss", history["g_loss"][-1])


if __name__ == "__main__":
    main()
