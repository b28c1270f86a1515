# corpus: A DeepXDE-style PINN inverse problem memoises the initial-condition values func(X) per point set, but func closes over the trainable constant C, so iteration 2 backpropagates through the cached iteration-1 graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/lululxvi/deepxde/pull/2077
import math

import numpy as np
import torch
import torch.nn as nn

C = torch.nn.Parameter(torch.tensor(1.0))


def npfunc_range_autocache(func):
    cache = {}

    def wrapper_cache(X, beg, end, _):
        key = (id(X), beg, end)
        if key not in cache:
            cache[key] = func(X[beg:end])  # also: GG101
        return cache[key]

    return wrapper_cache


def jacobian(y, x, i=0, j=0):
    g = torch.autograd.grad(y[:, i:i + 1], x, grad_outputs=torch.ones_like(y[:, i:i + 1]), create_graph=True)[0]
    return g[:, j:j + 1]


def hessian(y, x, i=0, j=0):
    dy = jacobian(y, x, 0, i)
    return jacobian(dy, x, 0, j)


class IC(object):
    def __init__(self, func, on_initial):
        self.func = npfunc_range_autocache(func)
        self.on_initial = on_initial

    def error(self, X, inputs, outputs, beg, end):
        values = self.func(X, beg, end, None)
        return outputs[beg:end] - values


class DirichletBC(object):
    def __init__(self, func):
        self.func = func

    def error(self, X, inputs, outputs, beg, end):
        return outputs[beg:end] - self.func(X[beg:end])


def pde(x, y):
    dy_t = jacobian(y, x, i=0, j=1)
    dy_xx = hessian(y, x, i=0, j=0)
    return dy_t - dy_xx + torch.exp(-x[:, 1:]) * (
        torch.sin(np.pi * x[:, 0:1]) - np.pi ** 2 * torch.sin(np.pi * x[:, 0:1])
    )


class TimePDE(object):
    def __init__(self, pde, bcs, n_bc=8, n_ic=8, n_domain=24):
        self.pde = pde
        self.bcs = bcs
        xb = torch.cat([torch.randint(0, 2, (n_bc, 1)).float() * 2 - 1, torch.rand(n_bc, 1)], 1)
        xi = torch.cat([torch.rand(n_ic, 1) * 2 - 1, torch.zeros(n_ic, 1)], 1)
        xd = torch.cat([torch.rand(n_domain, 1) * 2 - 1, torch.rand(n_domain, 1)], 1)
        self.train_x = torch.cat([xb, xi, xd], 0)
        self.num_bcs = [n_bc, n_ic]

    def losses(self, inputs, outputs):
        f = self.pde(inputs, outputs)
        bcs_start = np.cumsum([0] + self.num_bcs)
        losses = [torch.mean(f[bcs_start[-1]:] ** 2)]
        for i, bc in enumerate(self.bcs):
            beg, end = bcs_start[i], bcs_start[i + 1]
            error = bc.error(self.train_x, inputs, outputs, beg, end)
            losses.append(torch.mean(error ** 2))
        return losses


class FNN(nn.Module):
    def __init__(self, layers):
        super(FNN, self).__init__()
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in zip(layers[:-1], layers[1:]))

    def forward(self, x):
        for lin in self.linears[:-1]:
            x = torch.tanh(lin(x))
        return self.linears[-1](x)


class Model(object):
    def __init__(self, data, net):
        self.data = data
        self.net = net

    def compile(self, lr, external_trainable_variables):
        params = list(self.net.parameters()) + external_trainable_variables
        self.opt = torch.optim.Adam(params, lr=lr)

    def train(self, iterations):
        for it in range(iterations):
            inputs = self.data.train_x.clone().requires_grad_(True)

            def closure():
                outputs = self.net(inputs)
                losses = self.data.losses(inputs, outputs)
                total_loss = torch.sum(torch.stack(losses))
                self.opt.zero_grad()
                total_loss.backward()  # expect: GG101
                return total_loss

            loss = self.opt.step(closure)
            print("step %d  loss %.5f  C %.4f" % (it, loss.item(), C.item()))


def main():
    torch.manual_seed(0)
    bc = DirichletBC(lambda x: torch.sin(np.pi * x[:, 0:1]) * torch.exp(-x[:, 1:]))
    ic = IC(lambda x: torch.sin(C * x[:, 0:1]) * torch.exp(-x[:, 1:2]), lambda _, on_initial: on_initial)
    data = TimePDE(pde, [bc, ic])
    net = FNN([2, 16, 16, 1])
    model = Model(data, net)
    model.compile(lr=1e-3, external_trainable_variables=[C])
    model.train(iterations=3)
    print("true C = pi = %.4f" % math.pi)


if __name__ == "__main__":
    main()
