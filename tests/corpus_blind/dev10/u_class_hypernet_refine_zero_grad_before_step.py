# corpus: HyperStyle-like coach refines its output over several iterations, calling loss.backward() each time, but runs optimizer.zero_grad() right before optimizer.step(), so every step applies zero gradients and the hypernetwork never trains
# source: https://github.com/yuval-alaluf/hyperstyle/issues/40
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Opts:
    n_iters_per_batch: int = 3
    learning_rate: float = 1e-2
    max_steps: int = 6
    l2_lambda: float = 1.0
    id_lambda: float = 0.1


class FrozenGenerator(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, w, delta):
        return torch.tanh(F.linear(w, self.fc.weight * (1 + delta), self.fc.bias))


class HyperNetwork(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2 * dim, 32), nn.ReLU(), nn.Linear(32, dim * dim))
        self.dim = dim

    def forward(self, x, y_hat):
        d = self.net(torch.cat([x, y_hat], dim=1)).mean(0)
        return 0.01 * d.view(self.dim, self.dim)


class Coach:
    def __init__(self, opts):
        self.opts = opts
        self.decoder = FrozenGenerator()
        self.net = HyperNetwork()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=opts.learning_rate)
        self.global_step = 0

    def perform_forward_on_batch(self, x, w, y_hat, weights_deltas):
        delta = self.net(x, y_hat)
        if weights_deltas is not None:
            delta = delta + weights_deltas
        return self.decoder(w, delta), delta

    def calc_loss(self, x, y_hat):
        return self.opts.l2_lambda * F.mse_loss(y_hat, x) + self.opts.id_lambda * (1 - F.cosine_similarity(y_hat, x).mean())

    def train(self, loader):
        self.net.train()
        while self.global_step < self.opts.max_steps:
            for x, w in loader:
                y_hat, weights_deltas = self.decoder(w, torch.zeros(16, 16)), None
                for _iter in range(self.opts.n_iters_per_batch):
                    y_hat, weights_deltas = self.perform_forward_on_batch(x, w, y_hat, weights_deltas)
                    loss = self.calc_loss(x, y_hat)
                    loss.backward()
                    y_hat, weights_deltas = y_hat.detach(), weights_deltas.detach()
                self.optimizer.zero_grad()  # expect: GG201
                self.optimizer.step()
                if self.global_step % 2 == 0:
                    print(f"step {self.global_step} loss {loss.item():.4f}")
                self.global_step += 1


def main():
    torch.manual_seed(0)
    loader = [(torch.rand(8, 16) * 2 - 1, torch.randn(8, 16)) for _ in range(2)]
    Coach(Opts()).train(loader)


if __name__ == "__main__":
    main()
