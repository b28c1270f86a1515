# corpus: StyleGAN2-style lazy path-length regularizer; autograd.grad w.r.t. latents is taken with retain_graph but no create_graph, the penalty trains nothing
# source: https://github.com/rosinality/stylegan2-pytorch/issues/32
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch import autograd


@dataclass
class Args:
    latent: int = 8
    img_dim: int = 12
    batch: int = 4
    path_regularize: float = 2.0
    path_batch_shrink: int = 2
    g_reg_every: int = 2
    iters: int = 4


class Generator(nn.Module):
    def __init__(self, latent, img_dim):
        super().__init__()
        self.style = nn.Sequential(nn.Linear(latent, latent), nn.LeakyReLU(0.2), nn.Linear(latent, latent))
        self.synthesis = nn.Sequential(nn.Linear(latent, 16), nn.LeakyReLU(0.2), nn.Linear(16, img_dim))

    def forward(self, z, return_latents=False):
        latent = self.style(z)
        img = self.synthesis(latent)
        if return_latents:
            return img, latent
        return img, None


def g_path_regularize(fake_img, latents, mean_path_length, decay=0.01):
    noise = torch.randn_like(fake_img) / math.sqrt(fake_img.shape[1])
    grad, = autograd.grad(outputs=(fake_img * noise).sum(), inputs=latents, retain_graph=True)  # expect: GG202
    path_lengths = grad.pow(2).sum(1).sqrt()
    path_mean = mean_path_length + decay * (path_lengths.mean() - mean_path_length)
    path_penalty = (path_lengths - path_mean).pow(2).mean()
    return path_penalty, path_mean.detach(), path_lengths


class Trainer:
    def __init__(self, args):
        self.args = args
        self.generator = Generator(args.latent, args.img_dim)
        self.discriminator = nn.Sequential(nn.Linear(args.img_dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.g_optim = torch.optim.Adam(self.generator.parameters(), lr=2e-3, betas=(0.0, 0.99))
        self.mean_path_length = 0.0
        self.last_reg_grads = None

    def g_step(self):
        a = self.args
        self.generator.zero_grad()
        fake_img, _ = self.generator(torch.randn(a.batch, a.latent))
        g_loss = nn.functional.softplus(-self.discriminator(fake_img)).mean()
        g_loss.backward()
        self.g_optim.step()

    def g_regularize(self):
        a = self.args
        path_batch_size = max(1, a.batch // a.path_batch_shrink)
        fake_img, latents = self.generator(torch.randn(path_batch_size, a.latent), return_latents=True)
        path_loss, self.mean_path_length, path_lengths = g_path_regularize(fake_img, latents, self.mean_path_length)
        self.generator.zero_grad()
        weighted_path_loss = a.path_regularize * a.g_reg_every * path_loss
        if a.path_batch_shrink:
            weighted_path_loss = weighted_path_loss + 0 * fake_img[0, 0]
        weighted_path_loss.backward()  # also: GG202
        self.last_reg_grads = [p.grad.clone() for p in self.generator.parameters()]
        self.g_optim.step()
        return path_loss

    def train(self):
        for i in range(self.args.iters):
            for p in self.discriminator.parameters():
                p.requires_grad_(False)
            self.g_step()
            if i % self.args.g_reg_every == 0:
                self.last_path_loss = self.g_regularize()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(Args())
    trainer.train()
    # ground truth: the path penalty is non-zero but carries no graph ...
    assert trainer.last_path_loss.item() > 0 and trainer.last_path_loss.grad_fn is None
    # ground truth: ... so the regularization step hands the generator only zero gradients
    assert all(g.abs().sum().item() == 0.0 for g in trainer.last_reg_grads)
