# corpus: DCGAN face-generation train() saves G(fixed_z) samples after every epoch without torch.no_grad()/detach, so the samples list keeps every epoch's generator graph alive (memory grows each epoch)
# source: https://github.com/udacity/deep-learning-v2-pytorch/pull/106
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


def conv(in_channels, out_channels, kernel_size, stride=2, padding=1, batch_norm=True):
    layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)]
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_channels))
    return nn.Sequential(*layers)


def deconv(in_channels, out_channels, kernel_size, stride=2, padding=1, batch_norm=True):
    layers = [nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)]
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_channels))
    return nn.Sequential(*layers)


class Discriminator(nn.Module):
    def __init__(self, conv_dim):
        super().__init__()
        self.conv_dim = conv_dim
        self.conv1 = conv(3, conv_dim, 4, batch_norm=False)
        self.conv2 = conv(conv_dim, conv_dim * 2, 4)
        self.fc = nn.Linear(conv_dim * 2 * 4 * 4, 1)

    def forward(self, x):
        out = F.leaky_relu(self.conv1(x), 0.2)
        out = F.leaky_relu(self.conv2(out), 0.2)
        return self.fc(out.view(-1, self.conv_dim * 2 * 4 * 4))


class Generator(nn.Module):
    def __init__(self, z_size, conv_dim):
        super().__init__()
        self.conv_dim = conv_dim
        self.fc = nn.Linear(z_size, conv_dim * 2 * 4 * 4)
        self.t_conv1 = deconv(conv_dim * 2, conv_dim, 4)
        self.t_conv2 = deconv(conv_dim, 3, 4, batch_norm=False)

    def forward(self, x):
        out = self.fc(x).view(-1, self.conv_dim * 2, 4, 4)
        out = F.relu(self.t_conv1(out))
        return torch.tanh(self.t_conv2(out))


def real_loss(D_out, smooth=False):
    labels = torch.ones(D_out.size(0)) * (0.9 if smooth else 1.0)
    return nn.BCEWithLogitsLoss()(D_out.squeeze(), labels)


def fake_loss(D_out):
    return nn.BCEWithLogitsLoss()(D_out.squeeze(), torch.zeros(D_out.size(0)))


def celeba_batches(n_batches, batch_size):
    for _ in range(n_batches):
        yield torch.rand(batch_size, 3, 16, 16) * 2 - 1, None


def train(D, G, d_optimizer, g_optimizer, z_size, n_epochs, print_every=2):
    samples = []
    losses = []

    sample_size = 4
    fixed_z = np.random.uniform(-1, 1, size=(sample_size, z_size))
    fixed_z = torch.from_numpy(fixed_z).float()

    for epoch in range(n_epochs):
        for batch_i, (real_images, _) in enumerate(celeba_batches(3, 8)):
            batch_size = real_images.size(0)

            # 1. Train the discriminator on real and fake images
            d_optimizer.zero_grad()
            d_real_loss = real_loss(D(real_images))
            z = torch.from_numpy(np.random.uniform(-1, 1, size=(batch_size, z_size))).float()
            fake_images = G(z)
            d_fake_loss = fake_loss(D(fake_images.detach()))
            d_loss = d_real_loss + d_fake_loss
            d_loss.backward()
            d_optimizer.step()

            # 2. Train the generator with an adversarial loss
            g_optimizer.zero_grad()
            z = torch.from_numpy(np.random.uniform(-1, 1, size=(batch_size, z_size))).float()
            fake_images = G(z)
            g_loss = real_loss(D(fake_images))
            g_loss.backward()
            g_optimizer.step()

            if batch_i % print_every == 0:
                losses.append((d_loss.item(), g_loss.item()))
                print('Epoch [{:5d}/{:5d}] | d_loss: {:6.4f} | g_loss: {:6.4f}'.format(
                    epoch + 1, n_epochs, d_loss.item(), g_loss.item()))

        # generate and save sample, fake images
        G.eval()  # for generating samples
        samples_z = G(fixed_z)
        samples.append(samples_z)  # expect: GG301
        G.train()  # back to training mode

    return losses, samples


def view_samples(epoch, samples):
    img = samples[epoch][0].detach().cpu().numpy()
    img = ((img + 1) * 255 / 2).astype(np.uint8)
    print("sample image", img.shape, img.min(), img.max())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--z_size", type=int, default=16)
    parser.add_argument("--conv_dim", type=int, default=8)
    parser.add_argument("--n_epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=2e-4)
    args = parser.parse_args([])
    np.random.seed(0)
    torch.manual_seed(0)
    D = Discriminator(args.conv_dim)
    G = Generator(z_size=args.z_size, conv_dim=args.conv_dim)
    d_optimizer = optim.Adam(D.parameters(), args.lr, [0.5, 0.999])
    g_optimizer = optim.Adam(G.parameters(), args.lr, [0.5, 0.999])
    losses, samples = train(D, G, d_optimizer, g_optimizer, args.z_size, n_epochs=args.n_epochs)
    view_samples(-1, samples)


if __name__ == "__main__":
    main()
