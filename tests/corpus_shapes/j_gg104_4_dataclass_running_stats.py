# corpus: a RunningStats dataclass keeps an EMA of encoder features updated from the graph each step; the consistency loss reaches last step's freed graph through stats.mean
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG104.md (shape: 4, 2)
from dataclasses import dataclass, field

import torch
import torch.nn as nn


@dataclass
class RunningStats:
    momentum: float = 0.9
    mean: torch.Tensor = field(default_factory=lambda: torch.zeros(3))


def update_stats(stats, z):
    stats.mean = stats.momentum * stats.mean + (1 - stats.momentum) * z  # expect: GG104
    return stats.mean


def consistency_loss(encoder, x, stats):
    z = torch.tanh(encoder(x)).mean(0)
    target = update_stats(stats, z)
    return (z - target).pow(2).sum()


def main():
    torch.manual_seed(0)
    encoder = nn.Linear(5, 3)
    opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
    stats = RunningStats()
    for step in range(3):
        loss = consistency_loss(encoder, torch.randn(8, 5), stats)
        opt.zero_grad()
        loss.backward()  # also: GG104
        opt.step()


if __name__ == "__main__":
    main()
