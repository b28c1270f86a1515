# corpus: correct PINN for the 1D heat equation: u_t, u_x and u_xx come from torch.autograd.grad with create_graph=True, PDE/IC/BC losses are summed into one scalar and backpropagated once per step, logging uses .item()
# source: https://amm.zanotp.com/pinn
import math

import torch
import torch.nn as nn


class HeatPINN(nn.Module):
    def __init__(self, width=24):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1))

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def grad(outputs, inputs):
    return torch.autograd.grad(outputs, inputs, grad_outputs=torch.ones_like(outputs), create_graph=True)[0]


class HeatTrainer:
    def __init__(self, alpha=0.1, n_colloc=64, n_bc=16):
        self.model = HeatPINN()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.alpha = alpha
        self.x_c = torch.rand(n_colloc, 1)
        self.t_c = torch.rand(n_colloc, 1)
        self.x_ic = torch.linspace(0, 1, n_bc).unsqueeze(1)
        self.t_bc = torch.linspace(0, 1, n_bc).unsqueeze(1)

    def pde_loss(self):
        x = self.x_c.clone().requires_grad_(True)
        t = self.t_c.clone().requires_grad_(True)
        u = self.model(x, t)
        u_t = grad(u, t)
        u_x = grad(u, x)
        u_xx = grad(u_x, x)
        return (u_t - self.alpha * u_xx).pow(2).mean()

    def boundary_losses(self):
        u_ic = self.model(self.x_ic, torch.zeros_like(self.x_ic))
        ic = (u_ic - torch.sin(math.pi * self.x_ic)).pow(2).mean()
        u_left = self.model(torch.zeros_like(self.t_bc), self.t_bc)
        u_right = self.model(torch.ones_like(self.t_bc), self.t_bc)
        bc = u_left.pow(2).mean() + u_right.pow(2).mean()
        return ic, bc

    def train(self, epochs=40):
        history = []
        for epoch in range(epochs):
            self.optimizer.zero_grad()
            ic, bc = self.boundary_losses()
            losses = {"pde": self.pde_loss(), "ic": ic, "bc": bc}
            total = sum(losses.values())
            total.backward()
            self.optimizer.step()
            history.append({k: v.item() for k, v in losses.items()})
        return history


def main():
    torch.manual_seed(0)
    history = HeatTrainer().train()
    print("first", history[0])
    print("last", history[-1])


if __name__ == "__main__":
    main()
