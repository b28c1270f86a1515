# corpus: DCGAN main() where the fake batch goes into netD for the D loss without .detach(), then the G step reuses it
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/examples/issues/116
import torch
import torch.nn as nn
import torch.optim as optim

nz, nx = 8, 16


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 32), nn.ReLU(True), nn.Linear(32, nx), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nx, 32), nn.LeakyReLU(0.2, inplace=True), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1)


def main():
    torch.manual_seed(0)
    netG, netD = Generator(), Discriminator()
    criterion = nn.BCELoss()
    optimizerD = optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real_label, fake_label = 1.0, 0.0
    dataloader = [torch.randn(8, nx) for _ in range(3)]

    for epoch in range(2):
        for i, real_cpu in enumerate(dataloader):
            # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
            netD.zero_grad()
            batch_size = real_cpu.size(0)
            label = torch.full((batch_size,), real_label)
            output = netD(real_cpu)
            errD_real = criterion(output, label)
            errD_real.backward()

            noise = torch.randn(batch_size, nz)
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake)  # expect: GG105
            errD_fake = criterion(output, label)
            errD_fake.backward()  # also: GG105
            optimizerD.step()

            # (2) Update G network: maximize log(D(G(z)))
            netG.zero_grad()
            label.fill_(real_label)
            output = netD(fake)  # also: GG105
            errG = criterion(output, label)
            errG.backward()  # also: GG105
            optimizerG.step()
            print(f"[{epoch}][{i}] Loss_D {errD_real.item() + errD_fake.item():.3f} Loss_G {errG.item():.3f}")


if __name__ == "__main__":
    main()
