# corpus: Glow flow (actnorm -> invertible 1x1 -> affine coupling) whose coupling layer shifts and scales the chunk() half z2 in place (z2 += shift; z2 *= scale) while computing the NLL; autograd refuses in-place changes to a view returned by chunk
# raises: RuntimeError: Output 1 of Split is a view and is being modified inplace
# source: https://github.com/chaiyujin/glow-pytorch/pull/6
import argparse
import math

import torch
import torch.nn as nn


class ActNorm(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(1, num_features))
        self.logs = nn.Parameter(torch.zeros(1, num_features))

    def forward(self, x, logdet):
        x = (x + self.bias) * torch.exp(self.logs)
        return x, logdet + self.logs.sum()


class InvertibleLinear(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        w_init = torch.linalg.qr(torch.randn(num_features, num_features))[0]
        self.weight = nn.Parameter(w_init)

    def forward(self, x, logdet):
        dlogdet = torch.slogdet(self.weight)[1]
        return x @ self.weight.t(), logdet + dlogdet


class AffineCoupling(nn.Module):
    def __init__(self, num_features, hidden):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(num_features // 2, hidden), nn.ReLU(),
                               nn.Linear(hidden, num_features))

    def forward(self, x, logdet):
        z1, z2 = torch.chunk(x, 2, dim=1)
        h = self.f(z1)
        shift, scale = h[:, 0::2], torch.sigmoid(h[:, 1::2] + 2.0)
        z2 += shift  # expect: GG107
        z2 *= scale
        logdet = logdet + torch.log(scale).sum(dim=1)
        return torch.cat([z1, z2], dim=1), logdet


class FlowStep(nn.Module):
    def __init__(self, num_features, hidden):
        super().__init__()
        self.actnorm = ActNorm(num_features)
        self.invconv = InvertibleLinear(num_features)
        self.coupling = AffineCoupling(num_features, hidden)

    def forward(self, x, logdet):
        x, logdet = self.actnorm(x, logdet)
        x, logdet = self.invconv(x, logdet)
        return self.coupling(x, logdet)


class Glow(nn.Module):
    def __init__(self, num_features=8, hidden=32, K=3):
        super().__init__()
        self.flows = nn.ModuleList([FlowStep(num_features, hidden) for _ in range(K)])

    def forward(self, x):
        logdet = torch.zeros(x.size(0))
        z = x
        for flow in self.flows:
            z, logdet = flow(z, logdet)
        log_pz = -0.5 * (z ** 2 + math.log(2 * math.pi)).sum(dim=1)
        return z, -(log_pz + logdet).mean()


class Trainer:
    def __init__(self, graph, optim, hparams):
        self.graph = graph
        self.optim = optim
        self.max_grad_norm = hparams.max_grad_norm

    def train(self, batches, n_epoches):
        global_step = 0
        for epoch in range(n_epoches):
            for x in batches:
                self.graph.train()
                self.optim.zero_grad()
                z, nll = self.graph(x)
                nll.backward()
                torch.nn.utils.clip_grad_norm_(self.graph.parameters(), self.max_grad_norm)
                self.optim.step()
                global_step += 1
            print(f"epoch {epoch} nll {nll.item():.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max_grad_norm", type=float, default=5.0)
    hparams = parser.parse_args([])
    torch.manual_seed(0)
    graph = Glow()
    optim = torch.optim.Adam(graph.parameters(), lr=hparams.lr)
    Trainer(graph, optim, hparams).train([torch.randn(16, 8) for _ in range(3)], n_epoches=2)


if __name__ == "__main__":
    main()
