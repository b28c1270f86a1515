# corpus: StyleGAN2-style training keeps g_ema, a running average of the generator updated in place through .data after each G step, sampled under no_grad
# source: https://github.com/rosinality/stylegan2-pytorch/issues/34
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def accumulate(model1, model2, decay=0.999):
    par1 = dict(model1.named_parameters())
    par2 = dict(model2.named_parameters())
    for k in par1.keys():
        par1[k].data.mul_(decay).add_(par2[k].data, alpha=1 - decay)


class Generator(nn.Module):
    def __init__(self, style_dim=6, out_dim=10):
        super().__init__()
        self.style = nn.Sequential(nn.Linear(style_dim, style_dim), nn.LeakyReLU(0.2))
        self.to_img = nn.Linear(style_dim, out_dim)

    def forward(self, z):
        return self.to_img(self.style(z))


def train(generator, discriminator, g_ema, g_optim, d_optim, iters=4, batch=6, accum=0.5 ** (32 / (10 * 1000))):
    sample_z = torch.randn(4, 6)
    samples = []
    for i in range(iters):
        real_img = torch.randn(batch, 10)

        requires_grad(generator, False)
        requires_grad(discriminator, True)
        fake_img = generator(torch.randn(batch, 6))
        d_loss = F.softplus(discriminator(fake_img)).mean() + F.softplus(-discriminator(real_img)).mean()
        discriminator.zero_grad()
        d_loss.backward()
        d_optim.step()

        requires_grad(generator, True)
        requires_grad(discriminator, False)
        fake_img = generator(torch.randn(batch, 6))
        g_loss = F.softplus(-discriminator(fake_img)).mean()
        generator.zero_grad()
        g_loss.backward()
        g_optim.step()

        accumulate(g_ema, generator, accum)

        if i % 2 == 0:
            with torch.no_grad():
                g_ema.eval()
                samples.append(g_ema(sample_z))
    return samples


if __name__ == "__main__":
    torch.manual_seed(0)
    generator = Generator()
    discriminator = nn.Sequential(nn.Linear(10, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    g_ema = copy.deepcopy(generator)
    g_ema.eval()
    accumulate(g_ema, generator, 0)
    g_optim = torch.optim.Adam(generator.parameters(), lr=2e-3, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(discriminator.parameters(), lr=2e-3, betas=(0.0, 0.99))
    samples = train(generator, discriminator, g_ema, g_optim, d_optim)
    requires_grad(discriminator, True)
    assert all(p.grad is not None for p in generator.parameters())
    assert all(p.grad is not None for p in discriminator.parameters())
    assert all(p.grad is None for p in g_ema.parameters())
    assert all(s.grad_fn is None for s in samples)
    assert any(not torch.equal(a, b) for a, b in zip(g_ema.parameters(), generator.parameters()))
