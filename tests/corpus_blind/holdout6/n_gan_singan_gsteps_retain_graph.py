# corpus: SinGAN-style train_single_scale: the G loop reuses the `fake` made in the last D step; errG.backward(retain_graph=True) hides the reuse and optimizerG.step() then changes the weights that graph saved
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/tamarott/SinGAN/issues/147
import argparse

import torch
import torch.nn as nn


class ConvBlock(nn.Sequential):
    def __init__(self, in_channel, out_channel, ker_size, padd, stride):
        super().__init__()
        self.add_module("conv", nn.Conv2d(in_channel, out_channel, kernel_size=ker_size, stride=stride, padding=padd))
        self.add_module("norm", nn.BatchNorm2d(out_channel))
        self.add_module("LeakyRelu", nn.LeakyReLU(0.2, inplace=True))


class WDiscriminator(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.head = ConvBlock(opt.nc_im, opt.nfc, opt.ker_size, opt.padd_size, 1)
        self.body = ConvBlock(opt.nfc, opt.nfc, opt.ker_size, opt.padd_size, 1)
        self.tail = nn.Conv2d(opt.nfc, 1, kernel_size=opt.ker_size, stride=1, padding=opt.padd_size)

    def forward(self, x):
        return self.tail(self.body(self.head(x)))


class GeneratorConcatSkip2CleanAdd(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.head = ConvBlock(opt.nc_im, opt.nfc, opt.ker_size, opt.padd_size, 1)
        self.body = ConvBlock(opt.nfc, opt.nfc, opt.ker_size, opt.padd_size, 1)
        self.tail = nn.Sequential(
            nn.Conv2d(opt.nfc, opt.nc_im, kernel_size=opt.ker_size, stride=1, padding=opt.padd_size),
            nn.Tanh(),
        )

    def forward(self, x, y):
        x = self.tail(self.body(self.head(x)))
        return x + y


def calc_gradient_penalty(netD, real_data, fake_data, LAMBDA):
    alpha = torch.rand(1, 1).expand(real_data.size())
    interpolates = alpha * real_data + ((1 - alpha) * fake_data)
    interpolates = interpolates.detach().requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = torch.autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                                    grad_outputs=torch.ones(disc_interpolates.size()),
                                    create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


def train_single_scale(netD, netG, real, opt):
    optimizerD = torch.optim.Adam(netD.parameters(), lr=opt.lr_d, betas=(opt.beta1, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=opt.lr_g, betas=(opt.beta1, 0.999))
    z_opt = torch.randn_like(real)
    prev = torch.zeros_like(real)
    errD2plot, errG2plot = [], []

    for epoch in range(opt.niter):
        ############################
        # (1) Update D network: maximize D(x) + D(G(z))
        ###########################
        for j in range(opt.Dsteps):
            netD.zero_grad()
            output = netD(real)
            errD_real = -output.mean()
            errD_real.backward(retain_graph=True)

            noise = opt.noise_amp * torch.randn_like(real) + prev
            fake = netG(noise.detach(), prev)
            output = netD(fake.detach())
            errD_fake = output.mean()
            errD_fake.backward(retain_graph=True)

            gradient_penalty = calc_gradient_penalty(netD, real, fake, opt.lambda_grad)
            gradient_penalty.backward()
            errD = errD_real + errD_fake + gradient_penalty
            optimizerD.step()

        errD2plot.append(errD.detach())

        ############################
        # (2) Update G network: maximize D(G(z))
        ###########################
        for j in range(opt.Gsteps):
            netG.zero_grad()
            output = netD(fake)
            errG = -output.mean()
            errG.backward(retain_graph=True)  # expect: GG302
            Z_opt = opt.noise_amp * z_opt + prev
            rec_loss = opt.alpha * nn.functional.mse_loss(netG(Z_opt.detach(), prev), real)
            rec_loss.backward(retain_graph=True)
            optimizerG.step()

        errG2plot.append(errG.detach() + rec_loss.detach())
        print("epoch %d  errD %.3f  errG %.3f" % (epoch, errD2plot[-1].item(), errG2plot[-1].item()))
    return z_opt, netG


def get_arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nc_im", type=int, default=3)
    parser.add_argument("--nfc", type=int, default=8)
    parser.add_argument("--ker_size", type=int, default=3)
    parser.add_argument("--padd_size", type=int, default=1)
    parser.add_argument("--niter", type=int, default=2)
    parser.add_argument("--Gsteps", type=int, default=3)
    parser.add_argument("--Dsteps", type=int, default=3)
    parser.add_argument("--lr_g", type=float, default=5e-4)
    parser.add_argument("--lr_d", type=float, default=5e-4)
    parser.add_argument("--beta1", type=float, default=0.5)
    parser.add_argument("--lambda_grad", type=float, default=0.1)
    parser.add_argument("--alpha", type=float, default=10.0)
    parser.add_argument("--noise_amp", type=float, default=0.1)
    return parser.parse_args([])


def main():
    torch.manual_seed(0)
    opt = get_arguments()
    real = torch.rand(1, 3, 16, 16) * 2 - 1
    netD = WDiscriminator(opt)
    netG = GeneratorConcatSkip2CleanAdd(opt)
    train_single_scale(netD, netG, real, opt)


if __name__ == "__main__":
    main()
