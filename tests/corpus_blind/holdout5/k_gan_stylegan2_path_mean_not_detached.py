# corpus: StyleGAN2-style lazy path-length regularization: g_path_regularize returns path_mean without .detach(), the training loop carries it as mean_path_length into the next regularization step, whose backward reaches the previous step's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/PaddlePaddle/PaddleGAN/issues/588
import argparse
import math

import torch
from torch import autograd, nn, optim
from torch.nn import functional as F


class MappingNetwork(nn.Module):
    def __init__(self, style_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(style_dim, style_dim), nn.LeakyReLU(0.2), nn.Linear(style_dim, style_dim))

    def forward(self, z):
        return self.net(z)


class Generator(nn.Module):
    def __init__(self, size, style_dim, n_latent=2):
        super().__init__()
        self.size = size
        self.n_latent = n_latent
        self.style = MappingNetwork(style_dim)
        self.const = nn.Parameter(torch.randn(1, 4, size, size))
        self.mod = nn.Linear(style_dim, 4)
        self.to_rgb = nn.Conv2d(4, 3, 1)

    def forward(self, styles, return_latents=False):
        w = self.style(styles[0])
        latent = w.unsqueeze(1).repeat(1, self.n_latent, 1)
        s = self.mod(latent.mean(1))
        x = self.const * s.view(-1, 4, 1, 1)
        image = self.to_rgb(F.leaky_relu(x, 0.2))
        if return_latents:
            return image, latent
        return image, None


class Discriminator(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8 * size * size, 1)

    def forward(self, x):
        return self.fc(F.leaky_relu(self.conv(x), 0.2).flatten(1))


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


def d_logistic_loss(real_pred, fake_pred):
    return F.softplus(-real_pred).mean() + F.softplus(fake_pred).mean()


def g_path_regularize(fake_img, latents, mean_path_length, decay=0.01):
    noise = torch.randn_like(fake_img) / math.sqrt(fake_img.shape[2] * fake_img.shape[3])
    (grad,) = autograd.grad(outputs=(fake_img * noise).sum(), inputs=latents, create_graph=True)
    path_lengths = torch.sqrt(grad.pow(2).sum(2).mean(1))

    path_mean = mean_path_length + decay * (path_lengths.mean() - mean_path_length)
    path_penalty = (path_lengths - path_mean).pow(2).mean()

    return path_penalty, path_mean, path_lengths


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def train(args, generator, discriminator, g_optim, d_optim):
    mean_path_length = 0
    mean_path_length_avg = 0
    loss_dict = {}
    for i in range(args.iter):
        real_img = torch.randn(args.batch, 3, args.size, args.size)

        requires_grad(generator, False)
        requires_grad(discriminator, True)
        noise = [torch.randn(args.batch, args.latent)]
        fake_img, _ = generator(noise)
        d_loss = d_logistic_loss(discriminator(real_img), discriminator(fake_img))
        discriminator.zero_grad()
        d_loss.backward()
        d_optim.step()

        requires_grad(generator, True)
        requires_grad(discriminator, False)
        noise = [torch.randn(args.batch, args.latent)]
        fake_img, _ = generator(noise)
        g_loss = g_nonsaturating_loss(discriminator(fake_img))
        generator.zero_grad()
        g_loss.backward()
        g_optim.step()

        g_regularize = i % args.g_reg_every == 0
        if g_regularize:
            path_batch_size = max(1, args.batch // args.path_batch_shrink)
            noise = [torch.randn(path_batch_size, args.latent)]
            fake_img, latents = generator(noise, return_latents=True)

            path_loss, mean_path_length, path_lengths = g_path_regularize(fake_img, latents, mean_path_length)  # expect: GG104

            generator.zero_grad()
            weighted_path_loss = args.path_regularize * args.g_reg_every * path_loss
            if args.path_batch_shrink:
                weighted_path_loss += 0 * fake_img[0, 0, 0, 0]
            weighted_path_loss.backward()  # also: GG104
            g_optim.step()
            mean_path_length_avg = mean_path_length.item()

        loss_dict["d"] = d_loss.item()
        loss_dict["g"] = g_loss.item()
        loss_dict["path_length"] = path_lengths.mean().item()
        print(i, {k: round(v, 4) for k, v in loss_dict.items()}, "mean_path_length", round(mean_path_length_avg, 4))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iter", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--latent", type=int, default=8)
    parser.add_argument("--g_reg_every", type=int, default=2)
    parser.add_argument("--path_regularize", type=float, default=2)
    parser.add_argument("--path_batch_shrink", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)

    generator = Generator(args.size, args.latent)
    discriminator = Discriminator(args.size)
    g_reg_ratio = args.g_reg_every / (args.g_reg_every + 1)
    g_optim = optim.Adam(generator.parameters(), lr=0.002 * g_reg_ratio, betas=(0.0, 0.99 ** g_reg_ratio))
    d_optim = optim.Adam(discriminator.parameters(), lr=0.002, betas=(0.0, 0.99))
    train(args, generator, discriminator, g_optim, d_optim)


if __name__ == "__main__":
    main()
