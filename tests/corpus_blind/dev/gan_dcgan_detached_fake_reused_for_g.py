# corpus: DCGAN loop that scores fake.detach() for D, then reuses the same fake (fresh netD pass) for the G step; losses logged as floats
# source: https://github.com/pytorch/examples/issues/584
import torch
import torch.nn as nn
import torch.optim as optim

nz, ngf, ndf, nc = 6, 16, 16, 10


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, ngf), nn.BatchNorm1d(ngf), nn.ReLU(True), nn.Linear(ngf, nc), nn.Tanh())

    def forward(self, x):
        return self.main(x)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nc, ndf), nn.LeakyReLU(0.2, inplace=True), nn.Linear(ndf, 1), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


def weights_init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0.0, 0.02)
        nn.init.zeros_(m.bias)


def train(netG, netD, dataloader, niter=2):
    criterion = nn.BCELoss()
    optimizerD = optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real_label, fake_label = 1, 0
    G_losses, D_losses = [], []
    for epoch in range(niter):
        for i, data in enumerate(dataloader, 0):
            ############################
            # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
            ###########################
            netD.zero_grad()
            real_cpu = data[0]
            batch_size = real_cpu.size(0)
            label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype)
            output = netD(real_cpu)
            errD_real = criterion(output, label)
            errD_real.backward()
            D_x = output.mean().item()

            noise = torch.randn(batch_size, nz)
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake.detach())
            errD_fake = criterion(output, label)
            errD_fake.backward()
            D_G_z1 = output.mean().item()
            errD = errD_real + errD_fake
            optimizerD.step()

            ############################
            # (2) Update G network: maximize log(D(G(z)))
            ###########################
            netG.zero_grad()
            label.fill_(real_label)
            output = netD(fake)
            errG = criterion(output, label)
            errG.backward()
            D_G_z2 = output.mean().item()
            optimizerG.step()

            G_losses.append(errG.item())
            D_losses.append(errD.item())
    return G_losses, D_losses, (D_x, D_G_z1, D_G_z2)


if __name__ == "__main__":
    torch.manual_seed(999)
    netG, netD = Generator(), Discriminator()
    netG.apply(weights_init)
    netD.apply(weights_init)
    dataloader = [(torch.rand(8, nc) * 2 - 1, torch.zeros(8)) for _ in range(3)]
    G_losses, D_losses, stats = train(netG, netD, dataloader)
    assert all(isinstance(v, float) for v in G_losses + D_losses)
    assert all(p.grad is not None for p in netG.parameters())
    assert all(p.grad is not None for p in netD.parameters())
