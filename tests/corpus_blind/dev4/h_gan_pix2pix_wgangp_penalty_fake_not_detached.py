# corpus: pix2pix model trained with --gan_mode wgangp and n_critic discriminator updates per generator update; backward_D detaches fake_AB for the critic score but hands the undetached fake_AB to cal_gradient_penalty, so the first critic backward walks into (and frees) the generator graph and the second critic iteration backpropagates into it again
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439
from collections import OrderedDict
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Pix2PixOptions:
    input_nc: int = 3
    output_nc: int = 3
    ngf: int = 8
    ndf: int = 8
    lr: float = 2e-4
    beta1: float = 0.5
    lambda_L1: float = 100.0
    lambda_gp: float = 10.0
    n_critic: int = 3
    gan_mode: str = "wgangp"


class GANLoss(nn.Module):
    def __init__(self, gan_mode):
        super().__init__()
        self.gan_mode = gan_mode

    def __call__(self, prediction, target_is_real):
        if self.gan_mode == "wgangp":
            return -prediction.mean() if target_is_real else prediction.mean()
        raise NotImplementedError("gan mode %s not implemented" % self.gan_mode)


def cal_gradient_penalty(netD, real_data, fake_data, device, type="mixed", constant=1.0, lambda_gp=10.0):
    if lambda_gp <= 0.0:
        return 0.0, None
    if type == "real":
        interpolatesv = real_data
    elif type == "fake":
        interpolatesv = fake_data
    elif type == "mixed":
        alpha = torch.rand(real_data.shape[0], 1, device=device)
        alpha = alpha.expand(real_data.shape[0], real_data.nelement() // real_data.shape[0])
        alpha = alpha.contiguous().view(*real_data.shape)
        interpolatesv = alpha * real_data + ((1 - alpha) * fake_data)
    else:
        raise NotImplementedError("{} not implemented".format(type))
    interpolatesv.requires_grad_(True)
    disc_interpolates = netD(interpolatesv)
    gradients = torch.autograd.grad(
        outputs=disc_interpolates,
        inputs=interpolatesv,
        grad_outputs=torch.ones(disc_interpolates.size(), device=device),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )
    gradients = gradients[0].view(real_data.size(0), -1)
    gradient_penalty = (((gradients + 1e-16).norm(2, dim=1) - constant) ** 2).mean() * lambda_gp
    return gradient_penalty, gradients


class UnetLikeGenerator(nn.Module):
    def __init__(self, input_nc, output_nc, ngf):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(input_nc, ngf, 3, padding=1), nn.LeakyReLU(0.2, True))
        self.up = nn.Sequential(nn.Conv2d(ngf + input_nc, output_nc, 3, padding=1), nn.Tanh())

    def forward(self, x):
        h = self.down(x)
        return self.up(torch.cat([h, x], 1))


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc, ndf):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(input_nc, ndf, 4, stride=2, padding=1),
            nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, 1, 3, stride=1, padding=1),
        )

    def forward(self, x):
        return self.model(x)


class Pix2PixModel:
    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cpu")
        self.loss_names = ["G_GAN", "G_L1", "D_real", "D_fake", "D_gp"]
        self.netG = UnetLikeGenerator(opt.input_nc, opt.output_nc, opt.ngf)
        self.netD = NLayerDiscriminator(opt.input_nc + opt.output_nc, opt.ndf)
        self.criterionGAN = GANLoss(opt.gan_mode)
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

    def set_input(self, batch):
        self.real_A = batch["A"].to(self.device)
        self.real_B = batch["B"].to(self.device)

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    @staticmethod
    def set_requires_grad(nets, requires_grad=False):
        if not isinstance(nets, list):
            nets = [nets]
        for net in nets:
            for param in net.parameters():
                param.requires_grad = requires_grad

    def backward_D(self):
        """Calculate GAN loss for the discriminator"""
        # Fake; stop backprop to the generator by detaching fake_B
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB.detach())
        self.loss_D_fake = self.criterionGAN(pred_fake, False)
        # Real
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D_real = self.criterionGAN(pred_real, True)
        # gradient penalty
        self.loss_D_gp, self.gradients = cal_gradient_penalty(self.netD, real_AB, fake_AB, self.device, lambda_gp=self.opt.lambda_gp)  # expect: GG105
        self.loss_D = self.loss_D_fake + self.loss_D_real + self.loss_D_gp
        self.loss_D.backward()  # also: GG105

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB)
        self.loss_G_GAN = self.criterionGAN(pred_fake, True)
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.opt.lambda_L1
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        # update D n_critic times before updating G
        self.set_requires_grad(self.netD, True)
        for _ in range(self.opt.n_critic):
            self.optimizer_D.zero_grad()
            self.backward_D()  # also: GG105
            self.optimizer_D.step()
        # update G
        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def get_current_losses(self):
        errors_ret = OrderedDict()
        for name in self.loss_names:
            errors_ret[name] = float(getattr(self, "loss_" + name))
        return errors_ret


def make_dataset(n_batches, batch_size=2, size=8):
    return [
        {"A": torch.rand(batch_size, 3, size, size) * 2 - 1, "B": torch.rand(batch_size, 3, size, size) * 2 - 1}
        for _ in range(n_batches)
    ]


def main():
    torch.manual_seed(0)
    opt = Pix2PixOptions()
    model = Pix2PixModel(opt)
    dataset = make_dataset(3)
    for epoch in range(2):
        for i, data in enumerate(dataset):
            model.set_input(data)
            model.optimize_parameters()
            losses = model.get_current_losses()
            print(epoch, i, {k: round(v, 4) for k, v in losses.items()})


if __name__ == "__main__":
    main()
