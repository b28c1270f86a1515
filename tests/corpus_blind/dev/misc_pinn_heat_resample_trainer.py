# corpus: heat-equation PINN trainer with a diff(y, xs) helper (create_graph=True), collocation points resampled every epoch and the loss dict logged with .item() (correct)
# source: https://discuss.pytorch.org/t/efficient-calculation-of-derivatives-for-pinn-solvers-in-pytorch/177249
import math
from dataclasses import dataclass, field

import torch
import torch.nn as nn

torch.manual_seed(0)


def diff(y, xs):
    grad = y
    ones = torch.ones_like(y)
    for x in xs:
        grad = torch.autograd.grad(grad, x, grad_outputs=ones, create_graph=True)[0]
    return grad


class MLP(nn.Module):
    def __init__(self, width=24):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1))

    def forward(self, inputs):
        return self.net(torch.cat(inputs, dim=1))


@dataclass
class TrainState:
    epoch: int = 0
    history: list = field(default_factory=list)


def heat(u, x, t, alpha=0.1):
    return diff(u, [t]) - alpha * diff(u, [x, x])


def sample_points(n):
    x = torch.rand(n, 1, requires_grad=True)
    t = torch.rand(n, 1, requires_grad=True)
    return x, t


def compute_losses(model, n_col=64, n_ic=16):
    x, t = sample_points(n_col)
    u = model([x, t])
    residual = heat(u, x, t)
    x0 = torch.rand(n_ic, 1)
    u0 = model([x0, torch.zeros_like(x0)])
    xb = torch.cat([torch.zeros(n_ic // 2, 1), torch.ones(n_ic // 2, 1)])
    ub = model([xb, torch.rand(n_ic, 1)])
    return {
        "pde": (residual ** 2).mean(),
        "ic": ((u0 - torch.sin(math.pi * x0)) ** 2).mean(),
        "bc": (ub ** 2).mean(),
    }


def train(model, epochs=4):
    state = TrainState()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        losses = compute_losses(model)
        total = sum(losses.values())
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        state.epoch = epoch
        state.history.append({k: v.item() for k, v in losses.items()})
    return state


def main():
    model = MLP()
    state = train(model)
    assert all(p.grad is not None for p in model.parameters())
    assert all(isinstance(v, float) for rec in state.history for v in rec.values())


if __name__ == "__main__":
    main()
