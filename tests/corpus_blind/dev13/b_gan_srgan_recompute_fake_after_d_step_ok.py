# corpus: SRGAN train.py after the fix discussed in the report: D is updated with d_loss.backward(retain_graph=True) and optimizerD.step(), then the generator step computes fake_img = netG(z) and fake_out = netD(fake_img).mean() again before g_loss.backward(), so no backward walks weights a step already changed; correct
# source: https://github.com/leftthomas/SRGAN/issues/101
import argparse

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Generator(nn.Module):
    def __init__(self, scale_factor=2):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, kernel_size=5, padding=2), nn.PReLU())
        self.block2 = nn.Sequential(nn.Conv2d(8, 8, kernel_size=3, padding=1), nn.BatchNorm2d(8), nn.PReLU())
        self.up = nn.Sequential(nn.Conv2d(8, 8 * scale_factor ** 2, kernel_size=3, padding=1),
                                nn.PixelShuffle(scale_factor), nn.PReLU(), nn.Conv2d(8, 3, kernel_size=5, padding=2))

    def forward(self, x):
        block1 = self.block1(x)
        block2 = self.block2(block1)
        return (torch.tanh(self.up(block1 + block2)) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1), nn.BatchNorm2d(8), nn.LeakyReLU(0.2),
            nn.AdaptiveAvgPool2d(1), nn.Conv2d(8, 16, kernel_size=1), nn.LeakyReLU(0.2),
            nn.Conv2d(16, 1, kernel_size=1))

    def forward(self, x):
        return torch.sigmoid(self.net(x).view(x.size(0)))


class GeneratorLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss_network = nn.Sequential(nn.Conv2d(3, 8, kernel_size=3, padding=1), nn.ReLU()).eval()
        for param in self.loss_network.parameters():
            param.requires_grad = False
        self.mse_loss = nn.MSELoss()

    def forward(self, out_labels, out_images, target_images):
        adversarial_loss = torch.mean(1 - out_labels)
        perception_loss = self.mse_loss(self.loss_network(out_images), self.loss_network(target_images))
        image_loss = self.mse_loss(out_images, target_images)
        tv = torch.pow(out_images[:, :, 1:, :] - out_images[:, :, :-1, :], 2).mean()
        return image_loss + 0.001 * adversarial_loss + 0.006 * perception_loss + 2e-8 * tv


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="Train Super Resolution Models")
    parser.add_argument("--crop_size", default=16, type=int)
    parser.add_argument("--upscale_factor", default=2, type=int)
    parser.add_argument("--num_epochs", default=2, type=int)
    return parser.parse_args(argv)


def main():
    torch.manual_seed(0)
    opt = parse_args([])
    hr = torch.rand(24, 3, opt.crop_size, opt.crop_size)
    lr = nn.functional.avg_pool2d(hr, opt.upscale_factor)
    train_loader = DataLoader(TensorDataset(lr, hr), batch_size=8, shuffle=True)
    netG, netD = Generator(opt.upscale_factor), Discriminator()
    generator_criterion = GeneratorLoss()
    optimizerG = optim.Adam(netG.parameters())
    optimizerD = optim.Adam(netD.parameters())
    results = {"d_loss": [], "g_loss": [], "d_score": [], "g_score": []}

    for epoch in range(1, opt.num_epochs + 1):
        running_results = {"batch_sizes": 0, "d_loss": 0, "g_loss": 0, "d_score": 0, "g_score": 0}
        netG.train()
        netD.train()
        for data, target in train_loader:
            batch_size = data.size(0)
            running_results["batch_sizes"] += batch_size
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
            d_loss.backward(retain_graph=True)
            optimizerD.step()
            ############################
            # (2) Update G network: minimize 1-D(G(z)) + Perception Loss + Image Loss + TV Loss
            ###########################
            netG.zero_grad()
            ## The two lines below are added to prevent runetime error in Google Colab ##
            fake_img = netG(z)
            fake_out = netD(fake_img).mean()
            g_loss = generator_criterion(fake_out, fake_img, real_img)
            g_loss.backward()
            optimizerG.step()

            running_results["g_loss"] += g_loss.item() * batch_size
            running_results["d_loss"] += d_loss.item() * batch_size
            running_results["d_score"] += real_out.item() * batch_size
            running_results["g_score"] += fake_out.item() * batch_size
        n = running_results["batch_sizes"]
        for key in results:
            results[key].append(running_results[key] / n)
        print("[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f" % (
            epoch, opt.num_epochs, results["d_loss"][-1], results["g_loss"][-1],
            results["d_score"][-1], results["g_score"][-1]))


if __name__ == "__main__":
    main()
