# corpus: StyleGAN2-style loop with lazy R1 regularisation: every d_reg_every steps real images get requires_grad, the R1 penalty comes from autograd.grad(create_graph=True) and is backpropagated with a 0 * real_pred term; fake is detached for D (correct)
# source: https://github.com/nv-tlabs/semanticGAN_code/issues/25
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Generator(nn.Module):
    def __init__(self, latent, size):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 64), nn.LeakyReLU(0.2), nn.Linear(64, 3 * size * size), nn.Tanh())
        self.size = size

    def forward(self, z):
        return self.net(z).view(-1, 3, self.size, self.size)


class Discriminator(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * (size // 2) ** 2, 1))

    def forward(self, x):
        return self.net(x)


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def d_logistic_loss(real_pred, fake_pred):
    return F.softplus(-real_pred).mean() + F.softplus(fake_pred).mean()


def d_r1_loss(real_pred, real_img):
    (grad_real,) = autograd.grad(outputs=real_pred.sum(), inputs=real_img, create_graph=True)
    return grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


def train(args, generator, discriminator, g_optim, d_optim):
    loss_dict = {}
    for idx in range(args.iter):
        real_img = torch.rand(args.batch, 3, args.size, args.size) * 2 - 1

        requires_grad(generator, False)
        requires_grad(discriminator, True)
        noise = torch.randn(args.batch, args.latent)
        fake_img = generator(noise)
        fake_pred = discriminator(fake_img.detach())
        real_pred = discriminator(real_img)
        d_loss = d_logistic_loss(real_pred, fake_pred)
        loss_dict["d"] = d_loss.item()
        discriminator.zero_grad()
        d_loss.backward()
        d_optim.step()

        d_regularize = idx % args.d_reg_every == 0
        if d_regularize:
            real_img.requires_grad = True
            real_pred = discriminator(real_img)
            r1_loss = d_r1_loss(real_pred, real_img)
            discriminator.zero_grad()
            (args.r1 / 2 * r1_loss * args.d_reg_every + 0 * real_pred[0]).backward()
            d_optim.step()
            loss_dict["r1"] = r1_loss.item()

        requires_grad(generator, True)
        requires_grad(discriminator, False)
        noise = torch.randn(args.batch, args.latent)
        fake_pred = discriminator(generator(noise))
        g_loss = g_nonsaturating_loss(fake_pred)
        loss_dict["g"] = g_loss.item()
        generator.zero_grad()
        g_loss.backward()
        g_optim.step()
        print(idx, {k: round(v, 4) for k, v in loss_dict.items()})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iter", type=int, default=5)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--latent", type=int, default=16)
    parser.add_argument("--r1", type=float, default=10.0)
    parser.add_argument("--d_reg_every", type=int, default=2)
    parser.add_argument("--lr", type=float, default=2e-3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    generator, discriminator = Generator(args.latent, args.size), Discriminator(args.size)
    d_ratio = args.d_reg_every / (args.d_reg_every + 1)
    g_optim = torch.optim.Adam(generator.parameters(), lr=args.lr, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(discriminator.parameters(), lr=args.lr * d_ratio, betas=(0.0, 0.99 ** d_ratio))
    train(args, generator, discriminator, g_optim, d_optim)


if __name__ == "__main__":
    main()
