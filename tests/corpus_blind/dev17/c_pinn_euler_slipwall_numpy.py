# corpus: PINN for steady compressible Euler flow around a cylinder builds the slip-wall condition u.n = 0 from a NumPy geometry helper and converts its slice of the training points with x.numpy(), but the training points require grad (all of them feed the PDE derivatives), so training stops at the first loss evaluation.
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/lululxvi/deepxde/issues/1046
import numpy as np
import torch
import torch.nn as nn

u_inf = 0.2
rho_inf = 0.1
E_inf = 1.0
k = 1.4


class Disk:
    def __init__(self, center, radius):
        self.center = np.asarray(center, dtype=np.float32)
        self.radius = radius

    def boundary_normal(self, x):
        n = self.center - x
        return n / np.linalg.norm(n, axis=-1, keepdims=True)

    def random_boundary_points(self, n, rng):
        theta = rng.uniform(0, 2 * np.pi, size=(n, 1))
        return (self.center + self.radius * np.hstack([np.cos(theta), np.sin(theta)])).astype(np.float32)


class Rectangle:
    def __init__(self, xmin, xmax):
        self.xmin = np.asarray(xmin, dtype=np.float32)
        self.xmax = np.asarray(xmax, dtype=np.float32)

    def random_points(self, n, rng):
        return rng.uniform(self.xmin, self.xmax, size=(n, 2)).astype(np.float32)


def jacobian(y, x, i, j):
    g = torch.autograd.grad(y[:, i:i + 1].sum(), x, create_graph=True)[0]
    return g[:, j:j + 1]


def pde_cost(x, y):
    u, v, E, rho = y[:, 0:1], y[:, 1:2], y[:, 2:3], y[:, 3:4]
    p = rho * (k - 1) * (E - rho * (u ** 2 + v ** 2) / 2)
    flux_x = torch.cat([rho * u, rho * u * u + p, rho * u * v, (rho * E + p) * u], dim=1)
    flux_y = torch.cat([rho * v, rho * u * v, rho * v * v + p, (rho * E + p) * v], dim=1)
    res = []
    for c in range(flux_x.shape[1]):
        res.append(jacobian(flux_x, x, c, 0) + jacobian(flux_y, x, c, 1))
    return torch.cat(res, dim=1)


class SlipWallBC:
    def __init__(self, geom):
        self.geom = geom

    def error(self, inputs, outputs, beg, end):
        x = inputs[beg:end]
        normal = self.geom.boundary_normal(x.numpy())  # expect: GG110
        normal = torch.as_tensor(normal)
        y = outputs[beg:end]
        return y[:, 0:1] * normal[:, 0:1] + y[:, 1:2] * normal[:, 1:2]


class Model:
    def __init__(self, net, cylinder, box, n_domain=64, n_boundary=32, seed=0):
        rng = np.random.default_rng(seed)
        self.net = net
        x_domain = box.random_points(n_domain, rng)
        x_wall = cylinder.random_boundary_points(n_boundary, rng)
        x_inlet = np.hstack([np.full((n_boundary, 1), -1.0), rng.uniform(-1, 1, (n_boundary, 1))]).astype(np.float32)
        # one training tensor, as in deepxde: [wall | inlet | domain]; every point is a PDE input
        self.train_x = torch.tensor(np.vstack([x_wall, x_inlet, x_domain]), requires_grad=True)
        self.bcs_start = [0, n_boundary, 2 * n_boundary]
        self.wall_bc = SlipWallBC(cylinder)
        self.optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

    def losses(self):
        outputs = self.net(self.train_x)
        loss_pde = pde_cost(self.train_x, outputs).pow(2).mean()
        b0, b1, b2 = self.bcs_start
        loss_wall = self.wall_bc.error(self.train_x, outputs, b0, b1).pow(2).mean()
        target = torch.tensor([u_inf, 0.0, E_inf, rho_inf])
        loss_in = (outputs[b1:b2, :4] - target).pow(2).mean()
        return loss_pde, loss_wall, loss_in

    def train(self, iterations):
        for it in range(iterations):
            loss_pde, loss_wall, loss_in = self.losses()
            loss = loss_pde + loss_wall + loss_in
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(it, loss.item())


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(2, 20), nn.Tanh(), nn.Linear(20, 20), nn.Tanh(), nn.Linear(20, 5))
    cylinder = Disk([0.0, 0.0], 0.25)
    box = Rectangle([-1.0, -1.0], [1.0, 1.0])
    model = Model(net, cylinder, box)
    model.train(3)


if __name__ == "__main__":
    main()
