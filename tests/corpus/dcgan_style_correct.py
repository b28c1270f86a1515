# corpus: DCGAN-style training loop done right: D step on fake.detach(), G step recomputes D(fake) after optD.step()
import torch
import torch.nn as nn

torch.manual_seed(0)

nz = 4
netG = nn.Sequential(nn.Linear(nz, 16), nn.BatchNorm1d(16), nn.ReLU(True), nn.Linear(16, 8), nn.Tanh())
netD = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
real_label, fake_label = 1.0, 0.0

for i in range(3):
    real = torch.rand(8, 8) * 2 - 1
    b_size = real.size(0)
    netD.zero_grad()
    label = torch.full((b_size,), real_label)
    errD_real = criterion(netD(real).view(-1), label)
    errD_real.backward()
    noise = torch.randn(b_size, nz)
    fake = netG(noise)
    label.fill_(fake_label)
    errD_fake = criterion(netD(fake.detach()).view(-1), label)
    errD_fake.backward()
    optimizerD.step()

    netG.zero_grad()
    label.fill_(real_label)
    errG = criterion(netD(fake).view(-1), label)
    errG.backward()
    optimizerG.step()
    print(i, (errD_real + errD_fake).item(), errG.item())
