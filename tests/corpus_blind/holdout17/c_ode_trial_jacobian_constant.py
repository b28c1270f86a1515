# corpus: Lagaris-style neural ODE solver (trial solution psi = 1 + x*N(x)) takes dN/dx from torch.autograd.functional.jacobian without create_graph, so the derivative in the residual is a constant and its gradient never reaches the network (runs clean, trains on a wrong gradient).
# source: https://github.com/snytav/VlasovElectric/blob/232bee6049e73c75f97afb0fe11322a4150e839c/ode_torch/auxiliary_functions.py
import numpy as np
import torch
import torch.nn as nn
from torch.autograd.functional import jacobian
from torch.optim import SGD


def LEFT(x):
    return 0.0


def RIGHT(x):
    return 1.0 + torch.cos(x * 0.5)


def psy_analytic(x):
    return x + 2 * np.sin(x * 0.5)


class ODEnet(nn.Module):
    def __init__(self, N):
        super().__init__()
        self.N = N
        self.fc1 = nn.Linear(1, self.N)
        self.act_fc1 = torch.sigmoid
        self.fc2 = nn.Linear(self.N, 1)

    def forward(self, x):
        x = self.fc1(x)
        x = self.act_fc1(x)
        x = self.fc2(x)
        return x


def f(x, psy):
    return RIGHT(x) - psy * LEFT(x)


def loss_function(pde, x):
    loss_sum = 0.
    for xi in x:
        xi = xi.reshape(1)
        input_point = xi
        net_out = pde.forward(xi)
        net_out_jacobian = jacobian(pde.forward, input_point)  # expect: GG202
        psy_t = 1. + xi * net_out
        d_net_out = net_out_jacobian.reshape(1)
        d_psy_t = net_out + xi * d_net_out
        func = f(xi, psy_t)
        err_sqr = (d_psy_t - func) ** 2
        loss_sum += err_sqr
    return loss_sum


def trainODE(pde, lrate, n_iter, x_space):
    optimizer = SGD(pde.parameters(), lr=lrate)
    for n in range(n_iter):
        optimizer.zero_grad()
        loss = loss_function(pde, x_space)
        loss.backward()
        optimizer.step()
        print(n, loss.item())
    return pde


def main():
    torch.manual_seed(0)
    nx = 10
    x_space = torch.from_numpy(np.linspace(0, 4 * np.pi, nx)).to(torch.float)
    x_space.requires_grad = True
    pde = ODEnet(nx)
    pde = trainODE(pde, 0.001, 5, x_space)
    with torch.no_grad():
        neural_solution = torch.cat([xi * pde.forward(xi.reshape(1)) for xi in x_space])
    mae = np.abs(psy_analytic(x_space.detach().numpy()) - (1 + neural_solution.numpy())).mean()
    print("mae", mae)


if __name__ == "__main__":
    main()
