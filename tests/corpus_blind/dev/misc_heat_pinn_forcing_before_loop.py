# corpus: heat-equation PINN trainer builds the forcing term from the requires_grad collocation tensors once, outside the epoch loop, so epoch 2 backpropagates through its freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/pytorch/issues/90158
import math

import torch
import torch.nn as nn

torch.manual_seed(0)


class HeatNet(nn.Module):
    def __init__(self, width=20):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, width), nn.Linear(width, width), nn.Linear(width, 1)])

    def forward(self, x, t):
        h = torch.cat([x, t], dim=1)
        for layer in self.layers[:-1]:
            h = torch.tanh(layer(h))
        return self.layers[-1](h)


def diff(y, x):
    return torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0]


def make_collocation(n):
    x = torch.rand(n, 1, requires_grad=True)
    t = torch.rand(n, 1, requires_grad=True)
    forcing = torch.exp(-t) * torch.sin(math.pi * x) * (math.pi ** 2 - 1.0)  # expect: GG103
    return x, t, forcing


class HeatTrainer:
    def __init__(self, model, alpha=1.0):
        self.model = model
        self.alpha = alpha
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def pde_loss(self, x, t, forcing):
        u = self.model(x, t)
        u_t = diff(u, t)
        u_xx = diff(diff(u, x), x)
        return ((u_t - self.alpha * u_xx - forcing) ** 2).mean()  # also: GG103

    def fit(self, x, t, forcing, epochs):
        for epoch in range(epochs):
            self.optimizer.zero_grad()
            loss = self.pde_loss(x, t, forcing)
            loss.backward()  # also: GG103
            self.optimizer.step()


def main():
    model = HeatNet()
    trainer = HeatTrainer(model)
    x, t, forcing = make_collocation(64)
    trainer.fit(x, t, forcing, epochs=3)


if __name__ == "__main__":
    main()
