# corpus: style-based GAN trainer keeps an EMA copy g_running updated by accumulate() with par1[k].data.mul_().add_() after the generator step; g_running is only used for sampling under no_grad (correct)
# source: https://github.com/rosinality/style-based-gan-pytorch/issues/112
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class StyledGenerator(nn.Module):
    def __init__(self, code_dim=8, out_dim=16):
        super().__init__()
        self.style = nn.Sequential(nn.Linear(code_dim, code_dim), nn.LeakyReLU(0.2))
        self.generator = nn.Sequential(nn.Linear(code_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, out_dim))

    def forward(self, z):
        return self.generator(self.style(z))


class Discriminator(nn.Module):
    def __init__(self, in_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def accumulate(model1, model2, decay=0.999):
    par1 = dict(model1.named_parameters())
    par2 = dict(model2.named_parameters())
    for k in par1.keys():
        par1[k].data.mul_(decay).add_(par2[k].data, alpha=1 - decay)


def train(generator, discriminator, g_running, g_optimizer, d_optimizer, iterations=4, batch=8, code_size=8):
    for i in range(iterations):
        real_image = torch.randn(batch, 16)
        discriminator.zero_grad()
        requires_grad(generator, False)
        requires_grad(discriminator, True)
        real_predict = discriminator(real_image)
        real_loss = F.softplus(-real_predict).mean()
        fake_image = generator(torch.randn(batch, code_size))
        fake_predict = discriminator(fake_image)
        fake_loss = F.softplus(fake_predict).mean()
        (real_loss + fake_loss).backward()
        d_optimizer.step()

        generator.zero_grad()
        requires_grad(generator, True)
        requires_grad(discriminator, False)
        fake_image = generator(torch.randn(batch, code_size))
        loss = F.softplus(-discriminator(fake_image)).mean()
        loss.backward()
        g_optimizer.step()
        accumulate(g_running, generator)

        requires_grad(generator, False)
        requires_grad(discriminator, True)
        if i % 2 == 0:
            with torch.no_grad():
                sample = g_running(torch.randn(4, code_size))
            print(f'{i}; G: {loss.item():.3f}; D: {(real_loss + fake_loss).item():.3f}; sample {sample.mean().item():.3f}')


if __name__ == '__main__':
    torch.manual_seed(0)
    generator, discriminator = StyledGenerator(), Discriminator()
    g_running = copy.deepcopy(generator)
    g_running.train(False)
    accumulate(g_running, generator, 0)
    g_optimizer = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.0, 0.99))
    d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=1e-3, betas=(0.0, 0.99))
    train(generator, discriminator, g_running, g_optimizer, d_optimizer)
