# corpus: WGAN-GP model class whose periodic evaluation runs extra generator/discriminator passes without no_grad and stores the raw critic outputs and losses in a results dict of lists, so every eval batch's graph stays alive
# source: https://github.com/rdevon/cortex/pull/7
import argparse
from collections import defaultdict

import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, dims, final=None):
        super().__init__()
        layers = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.LeakyReLU(0.2)]
        layers = layers[:-1]
        if final is not None:
            layers.append(final)
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class WGANGP:
    def __init__(self, args):
        self.args = args
        self.generator = MLP([args.z_dim, 64, 64, args.x_dim], final=nn.Tanh())
        self.discriminator = MLP([args.x_dim, 64, 64, 1])
        self.optimizers = {
            "generator": torch.optim.Adam(self.generator.parameters(), lr=1e-4, betas=(0.5, 0.9)),
            "discriminator": torch.optim.Adam(self.discriminator.parameters(), lr=1e-4, betas=(0.5, 0.9)),
        }
        self.results = defaultdict(list)

    def gradient_penalty(self, real, fake):
        eps = torch.rand(real.size(0), 1)
        inter = (eps * real + (1 - eps) * fake).requires_grad_(True)
        out = self.discriminator(inter)
        g = torch.autograd.grad(out.sum(), inter, create_graph=True)[0]
        return ((g.norm(2, dim=1) - 1) ** 2).mean()

    def train_step(self, real):
        z = torch.randn(real.size(0), self.args.z_dim)
        fake = self.generator(z)
        d_loss = (self.discriminator(fake.detach()).mean() - self.discriminator(real).mean()
                  + self.args.penalty * self.gradient_penalty(real, fake.detach()))
        self.optimizers["discriminator"].zero_grad()
        d_loss.backward()
        self.optimizers["discriminator"].step()

        g_loss = -self.discriminator(self.generator(z)).mean()
        self.optimizers["generator"].zero_grad()
        g_loss.backward()
        self.optimizers["generator"].step()
        return d_loss.item(), g_loss.item()

    def eval_step(self, real):
        z = torch.randn(real.size(0), self.args.z_dim)
        fake = self.generator(z)
        real_out = self.discriminator(real)
        fake_out = self.discriminator(fake)
        w_dist = real_out.mean() - fake_out.mean()
        self.results["real_out"].append(real_out.mean())  # expect: GG301
        self.results["fake_out"].append(fake_out.mean())  # expect: GG301
        self.results["wasserstein"].append(w_dist)  # expect: GG301

    def summarize(self):
        return {k: sum(v.item() for v in vs) / len(vs) for k, vs in self.results.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--z_dim", type=int, default=8)
    parser.add_argument("--x_dim", type=int, default=12)
    parser.add_argument("--penalty", type=float, default=10.0)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = WGANGP(args)
    train_batches = [torch.randn(32, args.x_dim) for _ in range(3)]
    eval_batches = [torch.randn(32, args.x_dim) for _ in range(4)]
    for epoch in range(args.epochs):
        for real in train_batches:
            d, g = model.train_step(real)
        for real in eval_batches:
            model.eval_step(real)
        print(epoch, d, g, model.summarize())


if __name__ == "__main__":
    main()
