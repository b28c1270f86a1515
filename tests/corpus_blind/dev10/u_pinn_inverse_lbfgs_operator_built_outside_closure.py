# corpus: inverse PINN (fractional Poisson, trainable order alpha) trained with L-BFGS; the alpha-dependent quadrature operator is built once outside the closure, so the second closure call backpropagates through its freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/lululxvi/deepxde/issues/1400
import math
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class ProblemConfig:
    n_colloc: int = 24
    n_quad: int = 8
    alpha_init: float = 1.5
    alpha_true: float = 1.8
    lbfgs_iters: int = 5


class FieldNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1))

    def forward(self, x):
        # hard boundary condition u(0) = u(1) = 0
        return x * (1 - x) * self.net(x)


def fractional_operator(x, alpha, n_quad):
    """Grunwald-Letnikov style weights on auxiliary points; depends on alpha (differentiable)."""
    h = 1.0 / n_quad
    ks = torch.arange(n_quad, dtype=x.dtype)
    coeff = torch.exp(torch.lgamma(ks - alpha) - torch.lgamma(-alpha) - torch.lgamma(ks + 1))
    weights = coeff / h ** alpha
    shift = ks.unsqueeze(0) * h
    aux = (x - shift).clamp(min=0.0)
    return weights, aux


class InversePINNTrainer:
    def __init__(self, cfg: ProblemConfig):
        self.cfg = cfg
        self.model = FieldNet()
        self.alpha = nn.Parameter(torch.tensor(cfg.alpha_init))
        self.x = torch.linspace(0.05, 0.95, cfg.n_colloc).unsqueeze(1)
        self.u_obs = torch.sin(math.pi * self.x)
        self.source = torch.full_like(self.x, 1.0)
        self.optimizer = torch.optim.LBFGS(list(self.model.parameters()) + [self.alpha],
                                           lr=0.5, max_iter=cfg.lbfgs_iters)

    def residual(self, weights, aux):
        u_aux = self.model(aux.reshape(-1, 1)).reshape(aux.shape)
        frac = (u_aux * weights).sum(dim=1, keepdim=True)
        return frac - self.source

    def train_step(self):
        weights, aux = fractional_operator(self.x, self.alpha, self.cfg.n_quad)  # expect: GG103

        def closure():
            self.optimizer.zero_grad()
            res = self.residual(weights, aux)
            data = self.model(self.x) - self.u_obs
            loss = res.pow(2).mean() + data.pow(2).mean()
            loss.backward()  # also: GG103
            return loss

        return self.optimizer.step(closure)


def main():
    torch.manual_seed(0)
    trainer = InversePINNTrainer(ProblemConfig())
    for it in range(3):
        loss = trainer.train_step()
        print(f"outer {it}: loss={loss.item():.4f} alpha={trainer.alpha.item():.3f}")


if __name__ == "__main__":
    main()
