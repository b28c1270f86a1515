# corpus: GAN class whose step() never zeroes the discriminator's grads, so D.step uses gradients summed over every past D and G backward
# source: https://github.com/Adversarial-Deep-Learning/code-soup/issues/69
import copy

import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, nz=6, nx=10):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 20), nn.ReLU(True), nn.Linear(20, nx), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, nx=10):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nx, 20), nn.LeakyReLU(0.2, True), nn.Linear(20, 1), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1)


class GAN:
    def __init__(self, lr=2e-4):
        self.generator = Generator()
        self.discriminator = Discriminator()
        self.criterion = nn.BCELoss()
        self.optD = torch.optim.Adam(self.discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optG = torch.optim.Adam(self.generator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.real_label, self.fake_label = 1.0, 0.0

    def step(self, real, noise):
        b = real.size(0)
        label = torch.full((b,), self.real_label)
        output = self.discriminator(real)
        errD_real = self.criterion(output, label)
        errD_real.backward()  # expect: GG201
        fake = self.generator(noise)
        label.fill_(self.fake_label)
        output = self.discriminator(fake.detach())
        errD_fake = self.criterion(output, label)
        errD_fake.backward()  # also: GG201
        errD = errD_real + errD_fake
        self.optD.step()

        self.generator.zero_grad()
        label.fill_(self.real_label)
        output = self.discriminator(fake)
        errG = self.criterion(output, label)
        errG.backward()
        self.optG.step()
        return errD.item(), errG.item()


def d_loss_grads(D, G, crit, real, noise):
    fake = G(noise).detach()
    loss = crit(D(real), torch.ones(real.size(0))) + crit(D(fake), torch.zeros(real.size(0)))
    return torch.autograd.grad(loss, list(D.parameters()))


if __name__ == "__main__":
    torch.manual_seed(0)
    gan = GAN()
    for _ in range(3):
        gan.step(torch.rand(8, 10) * 2 - 1, torch.randn(8, 6))

    real, noise = torch.rand(8, 10) * 2 - 1, torch.randn(8, 6)
    fresh = d_loss_grads(copy.deepcopy(gan.discriminator), copy.deepcopy(gan.generator), gan.criterion, real, noise)
    used = {}
    orig_step = gan.optD.step

    def spy_step(*a, **kw):
        used["grads"] = [p.grad.clone() for p in gan.discriminator.parameters()]
        return orig_step(*a, **kw)

    gan.optD.step = spy_step
    gan.step(real, noise)
    # ground truth: the D update did not use this batch's gradient but a sum with stale ones
    assert not all(torch.allclose(u, f, atol=1e-6) for u, f in zip(used["grads"], fresh))
