# corpus: affine coupling flow computes its scale with in-place mul_/tanh_ on the log_scale half returned by chunk(), a multi-output view autograd refuses to modify
# raises: RuntimeError: Output 1 of Split is a view and is being modified inplace
# source: https://github.com/XuezheMax/wolf/pull/1
import math

import torch
import torch.nn as nn


class AffineTransform:
    def __init__(self, dim, alpha):
        self.dim = dim
        self.alpha = alpha

    def calc_params(self, params):
        mu, log_scale = params.chunk(2, dim=self.dim)
        scale = log_scale.mul_(0.5).tanh_().mul(self.alpha).add(1.0)  # expect: GG107
        return mu, scale

    @staticmethod
    def fwd(z, mu, scale):
        z = (z + mu).mul(scale)
        logdet = scale.log().sum(dim=1)
        return z, logdet


class NICECoupling(nn.Module):
    def __init__(self, features, hidden=16, swap=False, alpha=0.9):
        super().__init__()
        self.half = features // 2
        self.swap = swap
        self.net = nn.Sequential(nn.Linear(self.half, hidden), nn.ELU(), nn.Linear(hidden, 2 * self.half))
        self.transform = AffineTransform(dim=1, alpha=alpha)

    def forward(self, x):
        z1, z2 = x.split(self.half, dim=1)
        if self.swap:
            z1, z2 = z2, z1
        params = self.net(z1)
        mu, scale = self.transform.calc_params(params)  # also: GG107
        z2, logdet = self.transform.fwd(z2, mu, scale)
        if self.swap:
            z1, z2 = z2, z1
        return torch.cat([z1, z2], dim=1), logdet


class Glowish(nn.Module):
    def __init__(self, features=4, n_layers=2):
        super().__init__()
        self.layers = nn.ModuleList([NICECoupling(features, swap=bool(i % 2)) for i in range(n_layers)])

    def forward(self, x):
        logdet_accum = x.new_zeros(x.size(0))
        for layer in self.layers:
            x, logdet = layer(x)
            logdet_accum = logdet_accum + logdet
        return x, logdet_accum

    def nll(self, x):
        z, logdet = self(x)
        log_pz = -0.5 * (z.pow(2) + math.log(2 * math.pi)).sum(dim=1)
        return -(log_pz + logdet).mean()


def train(model, optimizer, steps=3):
    history = []
    for step in range(steps):
        x = torch.randn(8, 4) * 0.5 + 1.0
        loss = model.nll(x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history


def main():
    torch.manual_seed(0)
    model = Glowish()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    print("nll", train(model, optimizer))


if __name__ == "__main__":
    main()
