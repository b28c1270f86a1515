import torch
import torch.nn as nn
import torch.optim as optim

from .models import Discriminator, Generator, weights_init

real_label = 1.0
fake_label = 0.0


class DCGANTrainer:
    def __init__(self, nz=8, lr=2e-4, beta1=0.5):
        self.nz = nz
        self.netG = Generator(nz)
        self.netD = Discriminator()
        self.netG.apply(weights_init)
        self.netD.apply(weights_init)
        self.criterion = nn.BCELoss()
        self.optimizerD = optim.Adam(self.netD.parameters(), lr=lr, betas=(beta1, 0.999))
        self.optimizerG = optim.Adam(self.netG.parameters(), lr=lr, betas=(beta1, 0.999))

    def step(self, real_cpu):
        batch_size = real_cpu.size(0)
        ############################
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        ###########################
        self.netD.zero_grad()
        label = torch.full((batch_size,), real_label)
        output = self.netD(real_cpu)
        errD_real = self.criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = torch.randn(batch_size, self.nz, 1, 1)
        fake = self.netG(noise)
        label.fill_(fake_label)
        output = self.netD(fake.detach())
        errD_fake = self.criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        self.optimizerD.step()

        ############################
        # (2) Update G network: maximize log(D(G(z)))
        ###########################
        self.netG.zero_grad()
        label.fill_(real_label)  # fake labels are real for generator cost
        output = self.netD(fake)
        errG = self.criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        self.optimizerG.step()
        return errD.item(), errG.item(), D_x, D_G_z1, D_G_z2
