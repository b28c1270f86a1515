# corpus: SNGAN discriminator wrapped in a hand-written SpectralNorm that refreshes u/v through .data on every forward; D(real) and D(fake) are both evaluated before one backward, so the first call's sigma gradient silently uses the second call's u/v
# source: https://github.com/pytorch/pytorch/pull/13350
import torch
import torch.nn as nn
import torch.nn.functional as F


def l2normalize(v, eps=1e-12):
    return v / (v.norm() + eps)


class SpectralNorm(nn.Module):
    def __init__(self, module, name='weight', power_iterations=1):
        super(SpectralNorm, self).__init__()
        self.module, self.name, self.power_iterations = module, name, power_iterations
        w = getattr(self.module, self.name)
        height = w.data.shape[0]
        width = w.view(height, -1).data.shape[1]
        u = nn.Parameter(l2normalize(w.data.new(height).normal_(0, 1)), requires_grad=False)
        v = nn.Parameter(l2normalize(w.data.new(width).normal_(0, 1)), requires_grad=False)
        w_bar = nn.Parameter(w.data)
        del self.module._parameters[self.name]
        self.module.register_parameter(self.name + "_u", u)
        self.module.register_parameter(self.name + "_v", v)
        self.module.register_parameter(self.name + "_bar", w_bar)

    def _update_u_v(self):
        u = getattr(self.module, self.name + "_u")
        v = getattr(self.module, self.name + "_v")
        w = getattr(self.module, self.name + "_bar")
        height = w.data.shape[0]
        for _ in range(self.power_iterations):
            v.data = l2normalize(torch.mv(torch.t(w.view(height, -1).data), u.data))  # also: GG203
            u.data = l2normalize(torch.mv(w.view(height, -1).data, v.data))  # expect: GG203
        sigma = u.dot(w.view(height, -1).mv(v))
        setattr(self.module, self.name, w / sigma.expand_as(w))

    def forward(self, *args):
        self._update_u_v()
        return self.module.forward(*args)


class Discriminator(nn.Module):
    def __init__(self, in_dim=16):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(SpectralNorm(nn.Linear(in_dim, 32)), nn.LeakyReLU(0.1),
                                  SpectralNorm(nn.Linear(32, 1)))

    def forward(self, x):
        return self.main(x)


class Generator(nn.Module):
    def __init__(self, z_dim=8, out_dim=16):
        super(Generator, self).__init__()
        self.model = nn.Sequential(nn.Linear(z_dim, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, out_dim), nn.Tanh())

    def forward(self, z):
        return self.model(z)


def train(discriminator, generator, batches, z_dim=8, disc_iters=1):
    optim_disc = torch.optim.Adam(filter(lambda p: p.requires_grad, discriminator.parameters()), lr=2e-4, betas=(0.0, 0.9))
    optim_gen = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.0, 0.9))
    for batch_idx, data in enumerate(batches):
        z = torch.randn(data.size(0), z_dim)
        for _ in range(disc_iters):
            optim_disc.zero_grad()
            optim_gen.zero_grad()
            disc_loss = F.relu(1.0 - discriminator(data)).mean() + F.relu(1.0 + discriminator(generator(z).detach())).mean()  # also: GG203
            disc_loss.backward()
            optim_disc.step()
        optim_disc.zero_grad()
        optim_gen.zero_grad()
        gen_loss = -discriminator(generator(z)).mean()
        gen_loss.backward()
        optim_gen.step()
        if batch_idx % 2 == 0:
            print('disc loss', disc_loss.item(), 'gen loss', gen_loss.item())


if __name__ == '__main__':
    torch.manual_seed(0)
    D, G = Discriminator(), Generator()
    train(D, G, [torch.rand(8, 16) * 2 - 1 for _ in range(3)])
