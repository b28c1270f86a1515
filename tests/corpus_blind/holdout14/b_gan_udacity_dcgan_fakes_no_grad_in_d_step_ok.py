# corpus: Udacity DCGAN train loop after the refactor: fake images for the discriminator step are generated under torch.no_grad(), and the generator step generates a fresh batch and backpropagates through D into G; losses are tracked with .item(); correct
# source: https://github.com/udacity/deep-learning-v2-pytorch/pull/306
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def conv(in_ch, out_ch, k=4, stride=2, padding=1, batch_norm=True):
    layers = [nn.Conv2d(in_ch, out_ch, k, stride, padding, bias=False)]
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_ch))
    return nn.Sequential(*layers)


class Discriminator(nn.Module):
    def __init__(self, conv_dim=8):
        super().__init__()
        self.conv_dim = conv_dim
        self.conv1 = conv(3, conv_dim, batch_norm=False)
        self.conv2 = conv(conv_dim, conv_dim * 2)
        self.fc = nn.Linear(conv_dim * 2 * 4 * 4, 1)

    def forward(self, x):
        out = nn.functional.leaky_relu(self.conv1(x), 0.2)
        out = nn.functional.leaky_relu(self.conv2(out), 0.2)
        return self.fc(out.view(-1, self.conv_dim * 2 * 4 * 4))


class Generator(nn.Module):
    def __init__(self, z_size=16, conv_dim=8):
        super().__init__()
        self.conv_dim = conv_dim
        self.fc = nn.Linear(z_size, conv_dim * 2 * 4 * 4)
        self.t_conv1 = nn.Sequential(nn.ConvTranspose2d(conv_dim * 2, conv_dim, 4, 2, 1, bias=False), nn.BatchNorm2d(conv_dim))
        self.t_conv2 = nn.ConvTranspose2d(conv_dim, 3, 4, 2, 1)

    def forward(self, x):
        out = self.fc(x).view(-1, self.conv_dim * 2, 4, 4)
        out = torch.relu(self.t_conv1(out))
        return torch.tanh(self.t_conv2(out))


def real_loss(D_out, smooth=False):
    labels = torch.ones(D_out.size(0)) * (0.9 if smooth else 1.0)
    return nn.BCEWithLogitsLoss()(D_out.squeeze(), labels)


def fake_loss(D_out):
    return nn.BCEWithLogitsLoss()(D_out.squeeze(), torch.zeros(D_out.size(0)))


def scale(x, feature_range=(-1, 1)):
    lo, hi = feature_range
    return x * (hi - lo) + lo


def train(D, G, train_loader, z_size=16, num_epochs=2, print_every=2):
    d_optimizer = optim.Adam(D.parameters(), 2e-4, [0.5, 0.999])
    g_optimizer = optim.Adam(G.parameters(), 2e-4, [0.5, 0.999])
    samples, losses = [], []
    fixed_z = torch.from_numpy(np.random.uniform(-1, 1, size=(4, z_size))).float()
    for epoch in range(num_epochs):
        for batch_i, (real_images, _) in enumerate(train_loader):
            batch_size = real_images.size(0)
            real_images = scale(real_images)

            d_optimizer.zero_grad()
            d_real_loss = real_loss(D(real_images))
            with torch.no_grad():
                z = torch.from_numpy(np.random.uniform(-1, 1, size=(batch_size, z_size))).float()
                fake_images = G(z)
            d_fake_loss = fake_loss(D(fake_images))
            d_loss = d_real_loss + d_fake_loss
            d_loss.backward()
            d_optimizer.step()

            g_optimizer.zero_grad()
            z = torch.from_numpy(np.random.uniform(-1, 1, size=(batch_size, z_size))).float()
            fake_images = G(z)
            g_loss = real_loss(D(fake_images))
            g_loss.backward()
            g_optimizer.step()

            if batch_i % print_every == 0:
                losses.append((d_loss.item(), g_loss.item()))
                print(f"Epoch [{epoch + 1:5d}/{num_epochs:5d}] | d_loss: {d_loss.item():6.4f} | g_loss: {g_loss.item():6.4f}")
        G.eval()
        with torch.no_grad():
            samples.append(G(fixed_z))
        G.train()
    return losses, samples


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    loader = [(torch.rand(4, 3, 16, 16), torch.zeros(4)) for _ in range(4)]
    losses, samples = train(Discriminator(), Generator(), loader)
    print("samples", len(samples), tuple(samples[-1].shape))


if __name__ == "__main__":
    main()
