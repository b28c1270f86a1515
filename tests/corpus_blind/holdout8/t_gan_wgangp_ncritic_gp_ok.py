# corpus: 1-D signal WGAN-GP, critic updated n_critic times per generator step with a freshly sampled detached fake each time and a gradient penalty built with create_graph=True and added to loss_D (correct)
# source: https://github.com/LixiangHan/GANs-for-1D-Signal/issues/7
import argparse
from collections import defaultdict

import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, nz, length):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 64), nn.ReLU(True), nn.Linear(64, length), nn.Tanh())

    def forward(self, z):
        return self.main(z).unsqueeze(1)


class Discriminator(nn.Module):
    def __init__(self, length):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2, True))
        self.fc = nn.Linear(8 * (length // 2), 1)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


def compute_gradient_penalty(netD, real, fake):
    alpha = torch.rand(real.size(0), 1, 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interpolates = netD(interpolates)
    gradients = torch.autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones_like(d_interpolates),
        create_graph=True,
        retain_graph=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def train(opt, dataloader):
    netG = Generator(opt.nz, opt.length)
    netD = Discriminator(opt.length)
    optimizerD = torch.optim.Adam(netD.parameters(), lr=opt.lr, betas=(0.0, 0.9))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=opt.lr, betas=(0.0, 0.9))
    history = defaultdict(list)
    for epoch in range(opt.epochs):
        for i, real in enumerate(dataloader):
            for _ in range(opt.n_critic):
                netD.zero_grad()
                noise = torch.randn(real.size(0), opt.nz)
                fake = netG(noise).detach()
                loss_D = -netD(real).mean() + netD(fake).mean()
                grad_penalty = compute_gradient_penalty(netD, real, fake)
                loss_D = loss_D + opt.lambda_gp * grad_penalty
                loss_D.backward()
                optimizerD.step()

            netG.zero_grad()
            noise = torch.randn(real.size(0), opt.nz)
            loss_G = -netD(netG(noise)).mean()
            loss_G.backward()
            optimizerG.step()

            history["loss_D"].append(loss_D.item())
            history["loss_G"].append(loss_G.item())
            history["gp"].append(grad_penalty.item())
        print(f"[{epoch}/{opt.epochs}] loss_D {history['loss_D'][-1]:.4f} loss_G {history['loss_G'][-1]:.4f}")
    return netG, netD, history


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nz", type=int, default=8)
    parser.add_argument("--length", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--n_critic", type=int, default=5)
    parser.add_argument("--lambda_gp", type=float, default=10.0)
    parser.add_argument("--epochs", type=int, default=2)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    t = torch.linspace(0, 6.28, opt.length)
    dataloader = [torch.sin(t + torch.rand(8, 1) * 6.28).unsqueeze(1) for _ in range(3)]
    train(opt, dataloader)


if __name__ == "__main__":
    main()
