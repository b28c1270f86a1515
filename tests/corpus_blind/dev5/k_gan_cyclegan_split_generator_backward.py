# corpus: CycleGAN model refactored to write separate backward_G_A / backward_G_B methods: each generator loss includes a cycle term through the other generator's output, so the two losses share fake_A/fake_B and the second backward hits freed buffers
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/394
import argparse
import itertools

import torch
import torch.nn as nn


class ResnetGeneratorLite(nn.Module):
    def __init__(self, nc=3, ngf=8):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(nc, ngf, 3, padding=1), nn.InstanceNorm2d(ngf), nn.ReLU(True),
            nn.Conv2d(ngf, nc, 3, padding=1), nn.Tanh(),
        )

    def forward(self, x):
        return self.model(x)


class NLayerDiscriminatorLite(nn.Module):
    def __init__(self, nc=3, ndf=8):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True), nn.Conv2d(ndf, 1, 3, 1, 1)
        )

    def forward(self, x):
        return self.model(x)


class GANLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.MSELoss()

    def __call__(self, prediction, target_is_real):
        target = torch.ones_like(prediction) if target_is_real else torch.zeros_like(prediction)
        return self.loss(prediction, target)


class CycleGANModel:
    def __init__(self, opt):
        self.opt = opt
        self.netG_A = ResnetGeneratorLite()
        self.netG_B = ResnetGeneratorLite()
        self.netD_A = NLayerDiscriminatorLite()
        self.netD_B = NLayerDiscriminatorLite()
        self.criterionGAN = GANLoss()
        self.criterionCycle = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(
            itertools.chain(self.netG_A.parameters(), self.netG_B.parameters()), lr=opt.lr, betas=(0.5, 0.999)
        )
        self.optimizer_D = torch.optim.Adam(
            itertools.chain(self.netD_A.parameters(), self.netD_B.parameters()), lr=opt.lr, betas=(0.5, 0.999)
        )

    def set_input(self, data):
        self.real_A = data["A"]
        self.real_B = data["B"]

    def forward(self):
        self.fake_B = self.netG_A(self.real_A)  # G_A(A)
        self.rec_A = self.netG_B(self.fake_B)  # G_B(G_A(A))
        self.fake_A = self.netG_B(self.real_B)  # G_B(B)
        self.rec_B = self.netG_A(self.fake_A)  # G_A(G_B(B))

    def set_requires_grad(self, nets, requires_grad=False):
        for net in nets:
            for param in net.parameters():
                param.requires_grad = requires_grad

    def backward_G_A(self):
        """G_A: adversarial loss on G_A(A) plus the cycle term it reconstructs, ||G_A(G_B(B)) - B||"""
        lambda_B = self.opt.lambda_B
        self.loss_G_A = self.criterionGAN(self.netD_A(self.fake_B), True)
        self.loss_cycle_B = self.criterionCycle(self.rec_B, self.real_B) * lambda_B
        loss = self.loss_G_A + self.loss_cycle_B
        loss.backward()

    def backward_G_B(self):
        """G_B: adversarial loss on G_B(B) plus ||G_B(G_A(A)) - A||"""
        lambda_A = self.opt.lambda_A
        self.loss_G_B = self.criterionGAN(self.netD_B(self.fake_A), True)
        self.loss_cycle_A = self.criterionCycle(self.rec_A, self.real_A) * lambda_A
        loss = self.loss_G_B + self.loss_cycle_A
        loss.backward()  # expect: GG102

    def backward_D_basic(self, netD, real, fake):
        loss_D_real = self.criterionGAN(netD(real), True)
        loss_D_fake = self.criterionGAN(netD(fake.detach()), False)
        loss_D = (loss_D_real + loss_D_fake) * 0.5
        loss_D.backward()
        return loss_D

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad([self.netD_A, self.netD_B], False)
        self.optimizer_G.zero_grad()
        self.backward_G_A()
        self.backward_G_B()
        self.optimizer_G.step()
        self.set_requires_grad([self.netD_A, self.netD_B], True)
        self.optimizer_D.zero_grad()
        self.loss_D_A = self.backward_D_basic(self.netD_A, self.real_B, self.fake_B)
        self.loss_D_B = self.backward_D_basic(self.netD_B, self.real_A, self.fake_A)
        self.optimizer_D.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.0002)
    parser.add_argument("--lambda_A", type=float, default=10.0)
    parser.add_argument("--lambda_B", type=float, default=10.0)
    parser.add_argument("--n_iters", type=int, default=2)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = CycleGANModel(opt)
    for i in range(opt.n_iters):
        model.set_input({"A": torch.rand(2, 3, 8, 8) * 2 - 1, "B": torch.rand(2, 3, 8, 8) * 2 - 1})
        model.optimize_parameters()
        print(i, model.loss_G_A.item(), model.loss_G_B.item(), model.loss_D_A.item())


if __name__ == "__main__":
    main()
