# corpus: PINN trainer for the 1D heat equation: pde_loss takes u_t, u_x and u_xx with autograd.grad(create_graph=True) on fresh collocation points each epoch, and the dict of data/pde/boundary losses is summed and backpropagated once (correct)
# source: https://discuss.pytorch.org/t/pinn-pde-loss-error-in-residual/211132
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class PINNConfig:
    alpha_t: float = 0.1
    n_collocation: int = 32
    n_data: int = 16
    n_boundary: int = 8
    lr: float = 1e-3
    epochs: int = 20
    w_data: float = 1.0
    w_pde: float = 1.0
    w_bc: float = 1.0


class HeatNet(nn.Module):
    def __init__(self, hidden=20, depth=3):
        super().__init__()
        layers = [nn.Linear(2, hidden), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(hidden, hidden), nn.Tanh()]
        layers.append(nn.Linear(hidden, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def pde_loss(model, x, t, alpha_t):
    x = x.clone().requires_grad_(True)
    t = t.clone().requires_grad_(True)
    u_pred = model(x, t)
    ones = torch.ones_like(u_pred)
    u_t = torch.autograd.grad(u_pred, t, ones, create_graph=True)[0]
    u_x = torch.autograd.grad(u_pred, x, ones, create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
    residual = u_t - alpha_t * u_xx
    return nn.MSELoss()(residual, torch.zeros_like(residual))


def exact_solution(x, t, alpha_t):
    return torch.exp(-alpha_t * torch.pi ** 2 * t) * torch.sin(torch.pi * x)


class PINNTrainer:
    def __init__(self, model, cfg: PINNConfig):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        self.history = []

    def sample_points(self):
        cfg = self.cfg
        x_c, t_c = torch.rand(cfg.n_collocation, 1), torch.rand(cfg.n_collocation, 1)
        x_d, t_d = torch.rand(cfg.n_data, 1), torch.rand(cfg.n_data, 1)
        t_b = torch.rand(cfg.n_boundary, 1)
        x_b = torch.randint(0, 2, (cfg.n_boundary, 1)).float()
        return (x_c, t_c), (x_d, t_d), (x_b, t_b)

    def compute_losses(self):
        (x_c, t_c), (x_d, t_d), (x_b, t_b) = self.sample_points()
        u_d = exact_solution(x_d, t_d, self.cfg.alpha_t)
        return {
            "data": nn.functional.mse_loss(self.model(x_d, t_d), u_d),
            "pde": pde_loss(self.model, x_c, t_c, self.cfg.alpha_t),
            "bc": self.model(x_b, t_b).pow(2).mean(),
        }

    def train_step(self):
        losses = self.compute_losses()
        total = (self.cfg.w_data * losses["data"] + self.cfg.w_pde * losses["pde"]
                 + self.cfg.w_bc * losses["bc"])
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()} | {"total": total.item()}

    def fit(self):
        for epoch in range(self.cfg.epochs):
            log = self.train_step()
            self.history.append(log)
            if epoch % 5 == 0:
                print(f"epoch {epoch}: " + " ".join(f"{k}={v:.4e}" for k, v in log.items()))


def main():
    torch.manual_seed(0)
    cfg = PINNConfig()
    PINNTrainer(HeatNet(), cfg).fit()


if __name__ == "__main__":
    main()
