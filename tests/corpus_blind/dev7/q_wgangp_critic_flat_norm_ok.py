# corpus: WGAN-GP model class (pytorch-wgan style) whose calculate_gradient_penalty uses autograd.grad with create_graph=True and flattens per-sample gradients before the norm; the critic is trained on D(fake) - D(real) + GP with the generator's output detached (correct)
# source: https://github.com/Zeleni9/pytorch-wgan/issues/40
import argparse

import torch
import torch.nn as nn
from torch import autograd


class Generator(nn.Module):
    def __init__(self, z_dim=16, channels=1, size=8):
        super().__init__()
        self.channels, self.size = channels, size
        self.main = nn.Sequential(nn.Linear(z_dim, 128), nn.ReLU(True), nn.Linear(128, channels * size * size), nn.Tanh())

    def forward(self, z):
        return self.main(z).view(-1, self.channels, self.size, self.size)


class Discriminator(nn.Module):
    def __init__(self, channels=1):
        super().__init__()
        self.main = nn.Sequential(nn.Conv2d(channels, 16, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True),
                                  nn.Conv2d(16, 32, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True))
        self.output = nn.Linear(32 * 2 * 2, 1)

    def forward(self, x):
        return self.output(self.main(x).flatten(1))


class WGAN_GP:
    def __init__(self, args):
        self.G, self.D = Generator(), Discriminator()
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), lr=args.lr, betas=(0.5, 0.999))
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), lr=args.lr, betas=(0.5, 0.999))
        self.lambda_term = 10
        self.critic_iter = args.critic_iter
        self.batch_size = args.batch_size

    def calculate_gradient_penalty(self, real_images, fake_images):
        eta = torch.rand(self.batch_size, 1, 1, 1).expand_as(real_images)
        interpolated = (eta * real_images + (1 - eta) * fake_images).requires_grad_(True)
        prob_interpolated = self.D(interpolated)
        gradients = autograd.grad(outputs=prob_interpolated, inputs=interpolated,
                                  grad_outputs=torch.ones(prob_interpolated.size()),
                                  create_graph=True, retain_graph=True)[0]
        flat = gradients.view(gradients.shape[0], -1)
        return (((flat ** 2).sum(dim=1).sqrt() - 1) ** 2).mean() * self.lambda_term

    def train(self, images_iter, generator_iters):
        for g_iter in range(generator_iters):
            for p in self.D.parameters():
                p.requires_grad = True
            for d_iter in range(self.critic_iter):
                self.D.zero_grad()
                images = next(images_iter)
                d_loss_real = self.D(images).mean()
                z = torch.randn(self.batch_size, 16)
                fake_images = self.G(z).detach()
                d_loss_fake = self.D(fake_images).mean()
                gradient_penalty = self.calculate_gradient_penalty(images, fake_images)
                d_loss = d_loss_fake - d_loss_real + gradient_penalty
                d_loss.backward()
                self.d_optimizer.step()
            for p in self.D.parameters():
                p.requires_grad = False
            self.G.zero_grad()
            z = torch.randn(self.batch_size, 16)
            g_loss = -self.D(self.G(z)).mean()
            g_loss.backward()
            self.g_optimizer.step()
            print(f"Generator iteration: {g_iter}, g_loss: {g_loss.item():.4f}, d_loss: {d_loss.item():.4f}, "
                  f"gp: {gradient_penalty.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--critic_iter", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=8)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = WGAN_GP(args)
    images = iter([torch.rand(args.batch_size, 1, 8, 8) * 2 - 1 for _ in range(10)])
    before = model.D.output.weight.detach().clone()
    model.train(images, generator_iters=3)
    assert not torch.equal(before, model.D.output.weight)


if __name__ == "__main__":
    main()
