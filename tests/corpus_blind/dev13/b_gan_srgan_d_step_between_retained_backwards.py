# corpus: SRGAN demo training loop: the discriminator loss 1 - D(real) + D(fake) is backpropagated with retain_graph=True and optimizerD.step() updates D, then the generator loss reuses the stored fake_out = netD(fake_img).mean() and its backward needs D's weights that the step modified in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/Lornatang/SRGAN-PyTorch/issues/19
import math

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
        self.prelu = nn.PReLU()
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)

    def forward(self, x):
        residual = self.prelu(self.conv1(x))
        return x + self.conv2(residual)


class Generator(nn.Module):
    def __init__(self, scale_factor=2, channels=8):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, channels, kernel_size=3, padding=1), nn.PReLU())
        self.block2 = ResidualBlock(channels)
        self.upsample = nn.Sequential(
            nn.Conv2d(channels, channels * scale_factor ** 2, kernel_size=3, padding=1),
            nn.PixelShuffle(scale_factor), nn.PReLU())
        self.out = nn.Conv2d(channels, 3, kernel_size=3, padding=1)

    def forward(self, x):
        b1 = self.block1(x)
        b2 = self.block2(b1)
        return (torch.tanh(self.out(self.upsample(b1 + b2))) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.AdaptiveAvgPool2d(1), nn.Conv2d(16, 1, kernel_size=1))

    def forward(self, x):
        return torch.sigmoid(self.net(x).view(x.size(0)))


class TVLoss(nn.Module):
    def forward(self, x):
        h_tv = torch.pow(x[:, :, 1:, :] - x[:, :, :-1, :], 2).sum()
        w_tv = torch.pow(x[:, :, :, 1:] - x[:, :, :, :-1], 2).sum()
        return (h_tv + w_tv) / x.size(0)


class GeneratorLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss_network = nn.Sequential(nn.Conv2d(3, 8, kernel_size=3, padding=1), nn.ReLU()).eval()
        for param in self.loss_network.parameters():
            param.requires_grad = False
        self.mse_loss = nn.MSELoss()
        self.tv_loss = TVLoss()

    def forward(self, out_labels, out_images, target_images):
        adversarial_loss = torch.mean(1 - out_labels)
        perception_loss = self.mse_loss(self.loss_network(out_images), self.loss_network(target_images))
        image_loss = self.mse_loss(out_images, target_images)
        tv_loss = self.tv_loss(out_images)
        return image_loss + 0.001 * adversarial_loss + 0.006 * perception_loss + 2e-8 * tv_loss


def make_loader(n=24, crop=16, scale=2):
    hr = torch.rand(n, 3, crop, crop)
    lr = nn.functional.interpolate(hr, scale_factor=1 / scale, mode="bicubic", align_corners=False)
    return DataLoader(TensorDataset(lr, hr), batch_size=8, shuffle=True)


def main():
    torch.manual_seed(0)
    netG, netD = Generator(), Discriminator()
    generator_criterion = GeneratorLoss()
    optimizerG = optim.Adam(netG.parameters())
    optimizerD = optim.Adam(netD.parameters())
    train_loader = make_loader()
    results = {"d_loss": [], "g_loss": [], "psnr": []}
    for epoch in range(1, 3):
        netG.train()
        netD.train()
        running = {"batch_sizes": 0, "d_loss": 0.0, "g_loss": 0.0}
        for data, target in train_loader:
            batch_size = data.size(0)
            running["batch_sizes"] += batch_size
            ############################
            # (1) Update D network: maximize D(x)-1-D(G(z))
            ###########################
            real_img = target
            z = data
            fake_img = netG(z)
            netD.zero_grad()
            real_out = netD(real_img).mean()
            fake_out = netD(fake_img).mean()
            d_loss = 1 - real_out + fake_out
            d_loss.backward(retain_graph=True)  # also: GG111
            optimizerD.step()  # expect: GG111
            ############################
            # (2) Update G network: minimize 1-D(G(z)) + Perception Loss + Image Loss + TV Loss
            ###########################
            netG.zero_grad()
            g_loss = generator_criterion(fake_out, fake_img, real_img)
            g_loss.backward()  # also: GG111
            optimizerG.step()
            running["g_loss"] += g_loss.item() * batch_size
            running["d_loss"] += d_loss.item() * batch_size
        mse = nn.functional.mse_loss(fake_img.detach(), real_img).item()
        results["psnr"].append(10 * math.log10(1 / max(mse, 1e-10)))
        results["d_loss"].append(running["d_loss"] / running["batch_sizes"])
        results["g_loss"].append(running["g_loss"] / running["batch_sizes"])
        print(epoch, results)


if __name__ == "__main__":
    main()
