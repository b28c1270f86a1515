# corpus: PINN with SoftAdapt-style adaptive loss weights stores the previous step's loss tensors on the weighting object, so the next step's weights drag the old graph into backward
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/lululxvi/deepxde/issues/215
import math

import torch
import torch.nn as nn

torch.manual_seed(0)


class PoissonNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 20), nn.Tanh(), nn.Linear(20, 1))

    def forward(self, x):
        return self.net(x)


class SoftAdaptWeights:
    def __init__(self, names, beta=0.5):
        self.names = names
        self.beta = beta
        self.prev = None

    def __call__(self, losses):
        current = torch.stack([losses[n] for n in self.names])
        if self.prev is None:
            weights = torch.ones_like(current)
        else:
            rates = (current - self.prev) / (self.prev + 1e-8)  # also: GG104
            weights = len(self.names) * torch.softmax(self.beta * rates, dim=0)
        self.prev = current  # expect: GG104
        return dict(zip(self.names, weights))


class PoissonPINN:
    def __init__(self):
        self.model = PoissonNet()
        self.weighting = SoftAdaptWeights(["pde", "bc"])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.log = []

    def losses(self, x_col, x_bc):
        u = self.model(x_col)
        u_x = torch.autograd.grad(u, x_col, torch.ones_like(u), create_graph=True)[0]
        u_xx = torch.autograd.grad(u_x, x_col, torch.ones_like(u_x), create_graph=True)[0]
        f = -(math.pi ** 2) * torch.sin(math.pi * x_col.detach())
        return {"pde": ((u_xx - f) ** 2).mean(), "bc": (self.model(x_bc) ** 2).mean()}

    def train(self, iters=3):
        x_bc = torch.tensor([[0.0], [1.0]])
        for it in range(iters):
            x_col = torch.rand(64, 1, requires_grad=True)
            losses = self.losses(x_col, x_bc)
            weights = self.weighting(losses)
            total = sum(weights[k] * losses[k] for k in losses)
            self.optimizer.zero_grad()
            total.backward()  # also: GG104
            self.optimizer.step()
            self.log.append({k: v.item() for k, v in losses.items()})


def main():
    PoissonPINN().train()


if __name__ == "__main__":
    main()
