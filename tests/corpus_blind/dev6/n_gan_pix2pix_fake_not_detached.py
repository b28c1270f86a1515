# corpus: pix2pix-style model class whose backward_D feeds the generated image to netD without .detach(); D's backward frees G's graph and backward_G then backpropagates through it again
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/388
import argparse

import torch
import torch.nn as nn


class GANLoss(nn.Module):
    def __init__(self, gan_mode="lsgan"):
        super().__init__()
        self.register_buffer("real_label", torch.tensor(1.0))
        self.register_buffer("fake_label", torch.tensor(0.0))
        self.loss = nn.MSELoss() if gan_mode == "lsgan" else nn.BCEWithLogitsLoss()

    def get_target_tensor(self, prediction, target_is_real):
        target = self.real_label if target_is_real else self.fake_label
        return target.expand_as(prediction)

    def __call__(self, prediction, target_is_real):
        return self.loss(prediction, self.get_target_tensor(prediction, target_is_real))


class UnetLikeGenerator(nn.Module):
    def __init__(self, in_nc, out_nc, ngf):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(in_nc, ngf, 4, 2, 1), nn.LeakyReLU(0.2))
        self.up = nn.Sequential(nn.ReLU(True), nn.ConvTranspose2d(ngf, out_nc, 4, 2, 1), nn.Tanh())

    def forward(self, x):
        return self.up(self.down(x))


class NLayerDiscriminator(nn.Module):
    def __init__(self, in_nc, ndf):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(in_nc, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, 1, 4, 1, 1),
        )

    def forward(self, x):
        return self.model(x)


class Pix2PixModel:
    def __init__(self, opt):
        self.opt = opt
        self.netG = UnetLikeGenerator(opt.input_nc, opt.output_nc, opt.ngf)
        self.netD = NLayerDiscriminator(opt.input_nc + opt.output_nc, opt.ndf)
        self.criterionGAN = GANLoss(opt.gan_mode)
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

    @staticmethod
    def set_requires_grad(nets, requires_grad=False):
        for net in nets:
            for param in net.parameters():
                param.requires_grad = requires_grad

    def set_input(self, batch):
        self.real_A = batch["A"]
        self.real_B = batch["B"]

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        # Fake; the generated image goes to netD as is
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB)  # expect: GG105
        self.loss_D_fake = self.criterionGAN(pred_fake, False)
        # Real
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D_real = self.criterionGAN(pred_real, True)
        self.loss_D = (self.loss_D_fake + self.loss_D_real) * 0.5
        self.loss_D.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB)
        self.loss_G_GAN = self.criterionGAN(pred_fake, True)
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.opt.lambda_L1
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()  # also: GG105

    def optimize_parameters(self):
        self.forward()
        # update D
        self.set_requires_grad([self.netD], True)
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        # update G
        self.set_requires_grad([self.netD], False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def get_current_losses(self):
        return {name: getattr(self, "loss_" + name).item() for name in ("G_GAN", "G_L1", "D_real", "D_fake")}


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input_nc", type=int, default=3)
    parser.add_argument("--output_nc", type=int, default=3)
    parser.add_argument("--ngf", type=int, default=8)
    parser.add_argument("--ndf", type=int, default=8)
    parser.add_argument("--gan_mode", default="lsgan")
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--beta1", type=float, default=0.5)
    parser.add_argument("--lambda_L1", type=float, default=100.0)
    parser.add_argument("--n_iters", type=int, default=3)
    return parser.parse_args([])


def main():
    torch.manual_seed(0)
    opt = parse_args()
    model = Pix2PixModel(opt)
    for it in range(opt.n_iters):
        batch = {"A": torch.randn(2, 3, 16, 16), "B": torch.randn(2, 3, 16, 16)}
        model.set_input(batch)
        model.optimize_parameters()
        print(it, model.get_current_losses())


if __name__ == "__main__":
    main()
