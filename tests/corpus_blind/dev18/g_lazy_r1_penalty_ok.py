# corpus: StyleGAN2-style loop (as used by uORF) with a lazy R1 penalty applied every d_reg_every iterations: the penalty comes from autograd.grad with create_graph=True, requires_grad is toggled per phase and the EMA generator is updated through .data; all gradients flow correctly.
# source: https://github.com/KovenYu/uORF/issues/5
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def accumulate(model1, model2, decay=0.999):
    par1 = dict(model1.named_parameters())
    par2 = dict(model2.named_parameters())
    for k in par1.keys():
        par1[k].data.mul_(decay).add_(par2[k].data, alpha=1 - decay)


def d_logistic_loss(real_pred, fake_pred):
    return F.softplus(-real_pred).mean() + F.softplus(fake_pred).mean()


def d_r1_loss(real_pred, real_img):
    grad_real, = autograd.grad(outputs=real_pred.sum(), inputs=real_img, create_graph=True)
    return grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


class Generator(nn.Module):
    def __init__(self, latent=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 64), nn.LeakyReLU(0.2), nn.Linear(64, 3 * 8 * 8), nn.Tanh())

    def forward(self, z):
        return self.net(z).view(-1, 3, 8, 8)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 32, 3, 2, 1),
                                 nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(32 * 2 * 2, 1))

    def forward(self, x):
        return self.net(x)


def train(args, generator, discriminator, g_ema, g_optim, d_optim, loader):
    for i, real_img in enumerate(loader):
        noise = torch.randn(args.batch, args.latent)

        requires_grad(generator, False)
        requires_grad(discriminator, True)
        fake_img = generator(noise)
        fake_pred = discriminator(fake_img)
        real_pred = discriminator(real_img)
        d_loss = d_logistic_loss(real_pred, fake_pred)
        discriminator.zero_grad()
        d_loss.backward()
        d_optim.step()

        d_regularize = i % args.d_reg_every == 0
        if d_regularize:
            real_img.requires_grad = True
            real_pred = discriminator(real_img)
            r1_loss = d_r1_loss(real_pred, real_img)
            discriminator.zero_grad()
            (args.r1 / 2 * r1_loss * args.d_reg_every + 0 * real_pred[0]).backward()
            d_optim.step()

        requires_grad(generator, True)
        requires_grad(discriminator, False)
        noise = torch.randn(args.batch, args.latent)
        fake_img = generator(noise)
        fake_pred = discriminator(fake_img)
        g_loss = g_nonsaturating_loss(fake_pred)
        generator.zero_grad()
        g_loss.backward()
        g_optim.step()

        accumulate(g_ema, generator, 0.5 ** (32 / (10 * 1000)))
        print(i, round(d_loss.item(), 4), round(g_loss.item(), 4), d_regularize)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--latent", type=int, default=16)
    parser.add_argument("--r1", type=float, default=10)
    parser.add_argument("--d_reg_every", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    generator, discriminator = Generator(args.latent), Discriminator()
    g_ema = Generator(args.latent)
    g_ema.eval()
    accumulate(g_ema, generator, 0)
    g_optim = torch.optim.Adam(generator.parameters(), lr=2e-3, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(discriminator.parameters(), lr=2e-3, betas=(0.0, 0.99))
    loader = [torch.rand(args.batch, 3, 8, 8) * 2 - 1 for _ in range(4)]
    train(args, generator, discriminator, g_ema, g_optim, d_optim, loader)


if __name__ == "__main__":
    main()
