# corpus: conditional deblurring GAN with a WGAN-GP critic updated critic_iters times per G step; fake_B is generated once before the critic loop and the gradient-penalty interpolation uses it undetached, so the second critic backward runs into G's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/KupynOrest/DeblurGAN/issues/56
import argparse

import torch
import torch.nn as nn
from torch import autograd


class ResnetGenerator(nn.Module):
    def __init__(self, nc=3, ngf=8):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(nc, ngf, 3, padding=1), nn.InstanceNorm2d(ngf), nn.ReLU(True),
            nn.Conv2d(ngf, nc, 3, padding=1), nn.Tanh(),
        )

    def forward(self, x):
        return torch.clamp(x + self.model(x), -1, 1)


class NLayerDiscriminator(nn.Module):
    def __init__(self, nc=3, ndf=8):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, stride=2, padding=1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, 1, 4, stride=1, padding=1),
        )

    def forward(self, x):
        return self.model(x)


class DiscLossWGANGP:
    def __init__(self, lambda_gp=10.0):
        self.LAMBDA = lambda_gp

    def calc_gradient_penalty(self, netD, real_data, fake_data):
        alpha = torch.rand(real_data.size(0), 1, 1, 1).expand_as(real_data)
        interpolates = alpha * real_data + (1 - alpha) * fake_data
        interpolates.requires_grad_(True)
        disc_interpolates = netD(interpolates)
        gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                                  grad_outputs=torch.ones_like(disc_interpolates),
                                  create_graph=True, retain_graph=True, only_inputs=True)[0]
        gradients = gradients.view(gradients.size(0), -1)
        return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * self.LAMBDA

    def get_loss(self, netD, fakeB, realB):
        d_fake = netD(fakeB.detach()).mean()
        d_real = netD(realB).mean()
        return d_fake - d_real + self.calc_gradient_penalty(netD, realB, fakeB)


class ConditionalGAN:
    def __init__(self, opt):
        self.opt = opt
        self.netG = ResnetGenerator()
        self.netD = NLayerDiscriminator()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(0.5, 0.999))
        self.discLoss = DiscLossWGANGP()
        self.contentLoss = nn.L1Loss()
        self.criticUpdates = opt.critic_iters

    def set_input(self, batch):
        self.real_A = batch["blurred"]
        self.real_B = batch["sharp"]

    def backward_D(self):
        self.loss_D = self.discLoss.get_loss(self.netD, self.fake_B, self.real_B)
        self.loss_D.backward()  # also: GG103

    def backward_G(self):
        self.loss_G_GAN = -self.netD(self.fake_B).mean()
        self.loss_G_Content = self.contentLoss(self.fake_B, self.real_B) * self.opt.lambda_A
        self.loss_G = self.loss_G_GAN + self.loss_G_Content
        self.loss_G.backward()

    def optimize_parameters(self):
        self.fake_B = self.netG(self.real_A)  # expect: GG103
        for iter_d in range(self.criticUpdates):
            self.optimizer_D.zero_grad()
            self.backward_D()
            self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def get_current_errors(self):
        return {"G_GAN": self.loss_G_GAN.item(), "G_L1": self.loss_G_Content.item(), "D": self.loss_D.item()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--critic_iters", type=int, default=5)
    parser.add_argument("--lambda_A", type=float, default=100.0)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = ConditionalGAN(opt)
    for step in range(2):
        batch = {"blurred": torch.rand(2, 3, 16, 16) * 2 - 1, "sharp": torch.rand(2, 3, 16, 16) * 2 - 1}
        model.set_input(batch)
        model.optimize_parameters()
        print(step, model.get_current_errors())


if __name__ == "__main__":
    main()
