# corpus: BiGAN trainer (G, E, D) backpropagates loss_d with retain_graph=True, steps D, then backpropagates loss_ge through the same D outputs whose weights the step just changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/mperezcarrasco/PyTorch-BiGAN/issues/1
import argparse

import torch
import torch.nn as nn
from torch import optim


class Generator(nn.Module):
    def __init__(self, latent_dim, x_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, x_dim), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Encoder(nn.Module):
    def __init__(self, latent_dim, x_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, latent_dim))

    def forward(self, x):
        return self.net(x)


class Discriminator(nn.Module):
    def __init__(self, latent_dim, x_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim + x_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, x, z):
        return self.net(torch.cat([x, z], dim=1))


class TrainerBiGAN:
    def __init__(self, args, data):
        self.args = args
        self.train_loader = data

    def train(self):
        self.G = Generator(self.args.latent_dim, self.args.x_dim)
        self.E = Encoder(self.args.latent_dim, self.args.x_dim)
        self.D = Discriminator(self.args.latent_dim, self.args.x_dim)
        optimizer_ge = optim.Adam(list(self.G.parameters()) + list(self.E.parameters()), lr=self.args.lr_adam)
        optimizer_d = optim.Adam(self.D.parameters(), lr=self.args.lr_adam)
        criterion = nn.BCELoss()
        for epoch in range(self.args.num_epochs):
            for x in self.train_loader:
                y_true = torch.ones((x.size(0), 1))
                y_fake = torch.zeros((x.size(0), 1))
                noise1 = torch.randn(x.size()) * 0.1
                noise2 = torch.randn(x.size()) * 0.1

                optimizer_d.zero_grad()
                optimizer_ge.zero_grad()

                z_fake = torch.randn((x.size(0), self.args.latent_dim))
                x_fake = self.G(z_fake)
                x_true = x.float()
                z_true = self.E(x_true)

                out_true = self.D(x_true + noise1, z_true)
                out_fake = self.D(x_fake + noise2, z_fake)

                loss_d = criterion(out_true, y_true) + criterion(out_fake, y_fake)
                loss_ge = criterion(out_fake, y_true) + criterion(out_true, y_fake)

                loss_d.backward(retain_graph=True)
                optimizer_d.step()  # expect: GG111

                loss_ge.backward()  # also: GG111
                optimizer_ge.step()
            print("epoch", epoch, "loss_d", loss_d.item(), "loss_ge", loss_ge.item())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_epochs", type=int, default=2)
    parser.add_argument("--lr_adam", type=float, default=1e-4)
    parser.add_argument("--latent_dim", type=int, default=8)
    parser.add_argument("--x_dim", type=int, default=16)
    args = parser.parse_args([])
    torch.manual_seed(0)
    data = [torch.randn(12, args.x_dim) for _ in range(3)]
    TrainerBiGAN(args, data).train()


if __name__ == "__main__":
    main()
