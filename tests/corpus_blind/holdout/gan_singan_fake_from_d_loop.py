# corpus: SinGAN train_single_scale: the fake built in the last D iteration is reused by every G step (retain_graph=True + optimizerG.step())
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/tamarott/SinGAN/issues/148
import torch
import torch.nn as nn


class Opt:
    nzx = 12
    niter = 2
    Dsteps = 2
    Gsteps = 3
    alpha = 10.0
    noise_amp = 0.1
    lr_g = 5e-4
    lr_d = 5e-4


class GeneratorConcatSkip2CleanAdd(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(n, 24), nn.LeakyReLU(0.2))
        self.tail = nn.Sequential(nn.Linear(24, n), nn.Tanh())

    def forward(self, x, y):
        return self.tail(self.head(x)) + y


class WDiscriminator(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n, 24), nn.LeakyReLU(0.2), nn.Linear(24, 1))

    def forward(self, x):
        return self.body(x)


def train_single_scale(netD, netG, real, opt):
    optimizerD = torch.optim.Adam(netD.parameters(), lr=opt.lr_d, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=opt.lr_g, betas=(0.5, 0.999))
    z_opt = torch.randn(1, opt.nzx)
    prev = torch.zeros(1, opt.nzx)
    errD2plot, errG2plot = [], []
    for epoch in range(opt.niter):
        noise_ = torch.randn(1, opt.nzx)
        ############################
        # (1) Update D network: maximize D(x) + D(G(z))
        ###########################
        for j in range(opt.Dsteps):
            netD.zero_grad()
            output = netD(real)
            errD_real = -output.mean()
            errD_real.backward(retain_graph=True)
            noise = opt.noise_amp * noise_ + prev
            fake = netG(noise.detach(), prev)  # expect: GG103
            output = netD(fake.detach())
            errD_fake = output.mean()
            errD_fake.backward(retain_graph=True)
            optimizerD.step()
        errD2plot.append((errD_real + errD_fake).detach())

        ############################
        # (2) Update G network: maximize D(G(z))
        ###########################
        for j in range(opt.Gsteps):
            netG.zero_grad()
            output = netD(fake)  # also: GG103
            errG = -output.mean()
            errG.backward(retain_graph=True)  # also: GG103
            Z_opt = opt.noise_amp * z_opt + prev
            rec_loss = opt.alpha * nn.functional.mse_loss(netG(Z_opt.detach(), prev), real)
            rec_loss.backward(retain_graph=True)
            optimizerG.step()
        errG2plot.append(errG.detach() + rec_loss.detach())
    return errD2plot, errG2plot


if __name__ == "__main__":
    torch.manual_seed(0)
    opt = Opt()
    real = torch.rand(1, opt.nzx)
    train_single_scale(WDiscriminator(opt.nzx), GeneratorConcatSkip2CleanAdd(opt.nzx), real, opt)
