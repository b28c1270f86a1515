# corpus: Neural ODE fitted to a cubic spiral (torchdiffeq ode_demo) with a fixed-step RK4 solver; the vector field adds a skip term in place onto the tanh activation, which tanh saved for its backward, so loss.backward() finds the saved output modified.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/rtqichen/torchdiffeq/blob/master/examples/ode_demo.py
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class Args:
    data_size = 200
    batch_time = 10
    batch_size = 16
    niters = 3
    test_freq = 2


args = Args()
SEED = 42
torch.manual_seed(SEED)
random.seed(SEED)
np.random.seed(SEED)

true_y0 = torch.tensor([[2.0, 0.0]])
t = torch.linspace(0.0, 25.0, args.data_size)
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])


def odeint(func, y0, t):
    """Fixed-step RK4 stand-in for torchdiffeq.odeint (returns (T, ...) trajectory)."""
    ys = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        dt = t1 - t0
        k1 = func(t0, y)
        k2 = func(t0 + dt / 2, y + dt * k1 / 2)
        k3 = func(t0 + dt / 2, y + dt * k2 / 2)
        k4 = func(t1, y + dt * k3)
        y = y + dt * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        ys.append(y)
    return torch.stack(ys)


class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y ** 3, true_A)


with torch.no_grad():
    true_y = odeint(Lambda(), true_y0, t)


def get_batch():
    s = torch.from_numpy(np.random.choice(np.arange(args.data_size - args.batch_time, dtype=np.int64),
                                          args.batch_size, replace=False))
    batch_y0 = true_y[s]
    batch_t = t[: args.batch_time]
    batch_y = torch.stack([true_y[s + i] for i in range(args.batch_time)], dim=0)
    return batch_y0, batch_t, batch_y


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 50)
        self.skip = nn.Linear(2, 50)
        self.fc2 = nn.Linear(50, 2)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)

    def forward(self, t, y):
        h = torch.tanh(self.fc1(y ** 3))
        h += self.skip(y)  # expect: GG107
        return self.fc2(h)


class RunningAverageMeter(object):
    def __init__(self, momentum=0.99):
        self.momentum = momentum
        self.reset()

    def reset(self):
        self.val = None
        self.avg = 0

    def update(self, val):
        self.avg = val if self.val is None else self.avg * self.momentum + val * (1 - self.momentum)
        self.val = val


def main():
    func = ODEFunc()
    optimizer = optim.RMSprop(func.parameters(), lr=1e-3)
    end = time.time()
    time_meter = RunningAverageMeter(0.97)
    loss_meter = RunningAverageMeter(0.97)
    for itr in range(1, args.niters + 1):
        optimizer.zero_grad()
        batch_y0, batch_t, batch_y = get_batch()
        pred_y = odeint(func, batch_y0, batch_t)
        loss = torch.mean(torch.abs(pred_y - batch_y))
        loss.backward()  # also: GG107
        optimizer.step()
        time_meter.update(time.time() - end)
        loss_meter.update(loss.item())
        if itr % args.test_freq == 0:
            with torch.no_grad():
                pred_y = odeint(func, true_y0, t)
                print("Iter {:04d} | Total Loss {:.6f}".format(itr, torch.mean(torch.abs(pred_y - true_y)).item()))
        end = time.time()


if __name__ == "__main__":
    main()
