# corpus: inpainting GAN model with re_avg_gan loss: backward_D stores self.pred_fake and runs loss_D.backward(); backward_G then reuses the stored self.pred_fake (whose graph was freed) instead of its fresh local pred_fake
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/Zhaoyi-Yan/Shift-Net_pytorch/issues/34
from types import SimpleNamespace

import torch
import torch.nn as nn


class GANLoss(nn.Module):
    def __init__(self, gan_type='re_avg_gan'):
        super().__init__()
        self.gan_type = gan_type
        self.loss = nn.BCEWithLogitsLoss()

    def __call__(self, prediction, target_is_real):
        target = torch.full_like(prediction, 1.0 if target_is_real else 0.0)
        return self.loss(prediction, target)


class ShiftNetModel:
    def initialize(self, opt):
        self.opt = opt
        self.netG = nn.Sequential(nn.Linear(opt.size, 32), nn.ReLU(), nn.Linear(32, opt.size))
        self.netD = nn.Sequential(nn.Linear(opt.size, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.criterionGAN = GANLoss(gan_type=opt.gan_type)
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(0.5, 0.999))

    def set_input(self, batch):
        real_B = batch['B']
        mask = torch.zeros_like(real_B)
        mask[:, self.opt.size // 4: 3 * self.opt.size // 4] = 1
        self.real_A = real_B * (1 - mask)
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def set_requires_grad(self, net, requires_grad):
        for p in net.parameters():
            p.requires_grad = requires_grad

    def backward_D(self):
        fake_B, real_B = self.fake_B, self.real_B
        self.pred_fake = self.netD(fake_B.detach())  # also: GG101
        self.pred_real = self.netD(real_B)
        self.loss_D = (self.criterionGAN(self.pred_real - torch.mean(self.pred_fake), True)
                       + self.criterionGAN(self.pred_fake - torch.mean(self.pred_real), False)) / 2.
        self.loss_D.backward()

    def backward_G(self):
        fake_B, real_B = self.fake_B, self.real_B
        pred_fake = self.netD(fake_B)
        if self.opt.gan_type == 're_avg_gan':
            self.pred_real = self.netD(real_B)
            self.loss_G_GAN = (self.criterionGAN(self.pred_real - torch.mean(self.pred_fake), False)  # expect: GG101
                               + self.criterionGAN(self.pred_fake - torch.mean(self.pred_real), True)) / 2.
            self.loss_G_GAN *= self.opt.gan_weight
        else:
            self.loss_G_GAN = self.criterionGAN(pred_fake, True) * self.opt.gan_weight
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.opt.lambda_A
        self.loss_G = self.loss_G_L1 + self.loss_G_GAN
        self.loss_G.backward()  # also: GG101

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad(self.netD, True)
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()

        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def get_current_losses(self):
        return {name: getattr(self, 'loss_' + name).item() for name in ['G_GAN', 'G_L1', 'D']}


def main():
    torch.manual_seed(0)
    opt = SimpleNamespace(size=16, lr=2e-4, gan_type='re_avg_gan', gan_weight=0.2, lambda_A=100.0)
    model = ShiftNetModel()
    model.initialize(opt)
    for _ in range(2):
        model.set_input({'B': torch.randn(4, opt.size)})
        model.optimize_parameters()
        print(model.get_current_losses())


if __name__ == '__main__':
    main()
