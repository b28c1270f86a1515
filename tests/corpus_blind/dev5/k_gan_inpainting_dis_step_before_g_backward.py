# corpus: inpainting GAN trainer (region-normalized net): D and G losses are both built first, then d_loss.backward(); dis_optimizer.step() runs before g_loss.backward(), whose graph went through the discriminator weights that step just changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/geekyutao/RN/pull/19
import argparse

import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(True), nn.Conv2d(8, 3, 3, padding=1), nn.Sigmoid())

    def forward(self, img, mask):
        return self.net(torch.cat([img * (1 - mask), mask], dim=1))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2, True), nn.Conv2d(8, 1, 3, 1, 1))

    def forward(self, x):
        out = self.conv(x)
        return torch.sigmoid(out), out


class AdversarialLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.criterion = nn.BCELoss()

    def forward(self, outputs, is_real, is_disc):
        labels = torch.ones_like(outputs) if is_real else torch.zeros_like(outputs)
        return self.criterion(outputs, labels)


class InpaintingModel(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.generator = Generator()
        self.discriminator = Discriminator()
        self.adversarial_loss = AdversarialLoss()
        self.l1_loss = nn.L1Loss()
        self.gan_weight = opt.gan_weight
        self.l1_weight = opt.l1_weight
        self.gen_optimizer = torch.optim.Adam(self.generator.parameters(), lr=opt.lr, betas=(0.0, 0.9))
        self.dis_optimizer = torch.optim.Adam(self.discriminator.parameters(), lr=opt.lr * 0.1, betas=(0.0, 0.9))
        self.global_iter = 0


def train(epoch, model, loader):
    model.train()
    avg_g_loss, avg_d_loss = 0, 0
    for iteration, (gt, mask) in enumerate(loader, 1):
        prediction = model.generator(gt, mask)
        merged_result = prediction * mask + gt * (1 - mask)

        # Compute losses
        g_loss, d_loss = 0, 0
        d_real, _ = model.discriminator(gt)
        d_fake, _ = model.discriminator(prediction.detach())
        d_real_loss = model.adversarial_loss(d_real, True, True)
        d_fake_loss = model.adversarial_loss(d_fake, False, True)
        d_loss += (d_real_loss + d_fake_loss) / 2

        g_fake, _ = model.discriminator(prediction)
        g_gan_loss = model.adversarial_loss(g_fake, True, False)
        g_loss += model.gan_weight * g_gan_loss
        g_l1_loss = model.l1_loss(gt, merged_result) / torch.mean(mask)
        g_loss += model.l1_weight * g_l1_loss

        # Record
        avg_g_loss += g_loss.data.item()
        avg_d_loss += d_loss.data.item()

        # Backward
        d_loss.backward()
        model.dis_optimizer.step()  # expect: GG111
        model.dis_optimizer.zero_grad()

        g_loss.backward()  # also: GG111
        model.gen_optimizer.step()
        model.gen_optimizer.zero_grad()

        model.global_iter += 1
    print("===> Epoch {} Avg. G: {:.4f} D: {:.4f}".format(epoch, avg_g_loss / iteration, avg_d_loss / iteration))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--gan_weight", type=float, default=0.1)
    parser.add_argument("--l1_weight", type=float, default=1.0)
    parser.add_argument("--nEpochs", type=int, default=1)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = InpaintingModel(opt)
    loader = []
    for _ in range(2):
        mask = torch.zeros(2, 1, 8, 8)
        mask[:, :, 2:6, 2:6] = 1
        loader.append((torch.rand(2, 3, 8, 8), mask))
    for epoch in range(1, opt.nEpochs + 1):
        train(epoch, model, loader)


if __name__ == "__main__":
    main()
