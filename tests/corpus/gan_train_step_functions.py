# corpus: GAN with the discriminator loss computed inline; generator output is passed to D undetached and reused for G
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self, nz: int = 8) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(nz, 32), nn.ReLU(), nn.Linear(32, 10), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


netG = Generator()
netD = Discriminator()
optG = torch.optim.Adam(netG.parameters(), lr=1e-3)
optD = torch.optim.Adam(netD.parameters(), lr=1e-3)

for epoch in range(2):
    real_batch = torch.rand(8, 10) * 2 - 1
    noise = torch.randn(8, 8)
    fake_batch = netG(noise)

    netD.zero_grad()
    errD_real = F.softplus(-netD(real_batch)).mean()
    errD_fake = F.softplus(netD(fake_batch)).mean()  # expect: GG105
    errD = errD_real + errD_fake
    errD.backward()
    optD.step()

    netG.zero_grad()
    errG = F.softplus(-netD(fake_batch)).mean()
    errG.backward()
    optG.step()
    print(f"[{epoch}] Loss_D: {errD.item():.4f} Loss_G: {errG.item():.4f}")
