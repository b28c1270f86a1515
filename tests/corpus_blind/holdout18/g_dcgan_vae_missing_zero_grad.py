# corpus: DCGAN-VAE training where the VAE update of netG runs without netG.zero_grad(), so the generator gradients left over from the previous adversarial step are silently added to the VAE gradients.
# source: https://github.com/seangal/dcgan_vae_pytorch/issues/4
import argparse

import torch
import torch.nn as nn
import torch.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument('--batchSize', type=int, default=8)
parser.add_argument('--imageSize', type=int, default=16)
parser.add_argument('--nz', type=int, default=8)
parser.add_argument('--ngf', type=int, default=8)
parser.add_argument('--ndf', type=int, default=8)
parser.add_argument('--niter', type=int, default=2)
parser.add_argument('--lr', type=float, default=0.0002)
parser.add_argument('--beta1', type=float, default=0.5)
opt = parser.parse_args([])

nz, ngf, ndf, nc = opt.nz, opt.ngf, opt.ndf, 3


class _Sampler(nn.Module):
    def forward(self, input):
        mu = input[0]
        logvar = input[1]
        std = logvar.mul(0.5).exp_()
        eps = torch.FloatTensor(std.size()).normal_()
        return eps.mul(std).add_(mu)


class _Encoder(nn.Module):
    def __init__(self):
        super(_Encoder, self).__init__()
        self.conv1 = nn.Conv2d(ngf * 2, nz, 4)
        self.conv2 = nn.Conv2d(ngf * 2, nz, 4)
        self.encoder = nn.Sequential(
            nn.Conv2d(nc, ngf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ngf, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.LeakyReLU(0.2, inplace=True))

    def forward(self, input):
        output = self.encoder(input)
        return [self.conv1(output), self.conv2(output)]


class _netG(nn.Module):
    def __init__(self):
        super(_netG, self).__init__()
        self.encoder = _Encoder()
        self.sampler = _Sampler()
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.LeakyReLU(0.2, inplace=True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh())

    def forward(self, input):
        output = self.encoder(input)
        output = self.sampler(output)
        return self.decoder(output)


class _netD(nn.Module):
    def __init__(self):
        super(_netD, self).__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid())

    def forward(self, input):
        return self.main(input).view(-1, 1)


def main():
    torch.manual_seed(0)
    netG, netD = _netG(), _netD()
    criterion = nn.BCELoss()
    MSECriterion = nn.MSELoss()
    optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
    real_label, fake_label = 1.0, 0.0
    dataloader = [(torch.randn(opt.batchSize, nc, opt.imageSize, opt.imageSize), None) for _ in range(2)]

    for epoch in range(opt.niter):
        for i, data in enumerate(dataloader, 0):
            # (1) Update D network
            netD.zero_grad()
            input, _ = data
            batch_size = input.size(0)
            label = torch.full((batch_size, 1), real_label)
            output = netD(input)
            errD_real = criterion(output, label)
            errD_real.backward()
            noise = torch.randn(batch_size, nz, 1, 1)
            gen = netG.decoder(noise)
            label.fill_(fake_label)
            output = netD(gen.detach())
            errD_fake = criterion(output, label)
            errD_fake.backward()
            errD = errD_real + errD_fake
            optimizerD.step()

            # (2) Update G network: VAE
            encoded = netG.encoder(input)
            mu = encoded[0]
            logvar = encoded[1]
            KLD_element = mu.pow(2).add_(logvar.exp()).mul_(-1).add_(1).add_(logvar)
            KLD = torch.sum(KLD_element).mul_(-0.5)
            sampled = netG.sampler(encoded)
            rec = netG.decoder(sampled)
            MSEerr = MSECriterion(rec, input)
            VAEerr = KLD + MSEerr
            VAEerr.backward()  # expect: GG201
            optimizerG.step()

            # (3) Update G network: maximize log(D(G(z)))
            netG.zero_grad()
            label.fill_(real_label)
            rec = netG(input)
            output = netD(rec)
            errG = criterion(output, label)
            errG.backward()
            optimizerG.step()

            print('[%d/%d][%d/%d] Loss_VAE: %.4f Loss_D: %.4f Loss_G: %.4f'
                  % (epoch, opt.niter, i, len(dataloader), VAEerr.item(), errD.item(), errG.item()))


if __name__ == "__main__":
    main()
