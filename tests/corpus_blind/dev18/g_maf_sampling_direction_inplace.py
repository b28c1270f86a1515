# corpus: Masked autoregressive flow trained in the sampling direction (reverse KL); apply_forward writes each generated column into x in place after the conditioner has saved x for backward, so the loss backward fails.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/deeprob-org/deeprob-kit/issues/33
from typing import List, Tuple

import numpy as np
import torch
from torch import nn


class ScaledTanh(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.weight * torch.tanh(x)


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features, mask):
        super().__init__(in_features, out_features)
        self.register_buffer("mask", torch.tensor(mask, dtype=torch.float32))

    def forward(self, x):
        return nn.functional.linear(x, self.mask * self.weight, self.bias)


class AutoregressiveLayer(nn.Module):
    def __init__(self, in_features: int, depth: int, units: int, reverse: bool = False):
        super().__init__()
        self.in_features = in_features
        self.scale_act = ScaledTanh()
        degrees = self.build_degrees_sequential(depth, units, reverse)
        masks = self.build_masks(degrees)
        self.ordering = degrees[0]
        layers = []
        n_in, out_features = in_features, units
        for mask in masks[:-1]:
            layers.extend([MaskedLinear(n_in, out_features, mask), nn.ReLU()])
            n_in = out_features
        layers.append(MaskedLinear(n_in, in_features * 2, np.tile(masks[-1], reps=(2, 1))))
        self.network = nn.Sequential(*layers)

    def apply_backward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        z = self.network(x)
        t, s = torch.chunk(z, chunks=2, dim=1)
        s = self.scale_act(s)
        u = (x - t) * torch.exp(-s)
        return u, -torch.sum(s, dim=1)

    def apply_forward(self, u: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x = torch.zeros_like(u)
        log_det_jacobian = torch.zeros_like(u)
        for i in range(self.in_features):
            z = self.network(x)
            t, s = torch.chunk(z, chunks=2, dim=1)
            s = self.scale_act(s)
            idx = np.argwhere(self.ordering == i).item()
            x[:, idx] = u[:, idx] * torch.exp(s[:, idx]) + t[:, idx]  # expect: GG107
            log_det_jacobian[:, idx] = s[:, idx]
        log_det_jacobian = torch.sum(log_det_jacobian, dim=1)
        return x, log_det_jacobian

    def build_degrees_sequential(self, depth: int, units: int, reverse: bool) -> List[np.ndarray]:
        degrees = [np.arange(self.in_features - 1, -1, -1) if reverse else np.arange(self.in_features)]
        for _ in range(depth):
            degrees.append(np.arange(units) % (self.in_features - 1))
        return degrees

    @staticmethod
    def build_masks(degrees: List[np.ndarray]) -> List[np.ndarray]:
        masks = []
        for d1, d2 in zip(degrees[:-1], degrees[1:]):
            masks.append(np.less_equal(np.expand_dims(d1, 0), np.expand_dims(d2, 1)))
        masks.append(np.less(np.expand_dims(degrees[-1], 0), np.expand_dims(degrees[0], 1)))
        return masks


class MAF(nn.Module):
    def __init__(self, in_features, n_flows=3, depth=1, units=16):
        super().__init__()
        self.in_features = in_features
        self.layers = nn.ModuleList()
        reverse = False
        for _ in range(n_flows):
            self.layers.append(AutoregressiveLayer(in_features, depth, units, reverse=reverse))
            reverse = not reverse
        self.base = torch.distributions.Normal(0.0, 1.0)

    def rsample(self, n_samples):
        u = self.base.rsample((n_samples, self.in_features))
        log_prob = self.base.log_prob(u).sum(dim=1)
        x = u
        for layer in reversed(self.layers):
            x, ldj = layer.apply_forward(x)
            log_prob = log_prob - ldj
        return x, log_prob


def target_log_prob(x):
    centers = torch.tensor([[2.0, 2.0, 0.0, 0.0], [-2.0, -2.0, 0.0, 0.0]])
    d = ((x.unsqueeze(1) - centers.unsqueeze(0)) ** 2).sum(-1)
    return torch.logsumexp(-0.5 * d, dim=1)


def train(flow, n_steps=3, batch_size=32):
    optimizer = torch.optim.Adam(flow.parameters(), lr=1e-3)
    history = []
    for step in range(n_steps):
        optimizer.zero_grad()
        samples, log_q = flow.rsample(batch_size)
        loss = (log_q - target_log_prob(samples)).mean()
        loss.backward()  # also: GG107
        optimizer.step()
        history.append(loss.item())
    return history


def main():
    torch.manual_seed(0)
    flow = MAF(in_features=4)
    print(train(flow))


if __name__ == "__main__":
    main()
