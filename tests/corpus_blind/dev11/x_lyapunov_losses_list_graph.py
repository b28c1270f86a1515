# corpus: neural Lyapunov function for a damped pendulum trained with LBFGS; the closure appends the loss tensor itself to self.losses, so every closure call's graph stays alive for the whole run
# source: https://github.com/StanfordASL/neural-network-lyapunov/pull/140
from dataclasses import dataclass, field

import torch
import torch.nn as nn


@dataclass
class PendulumConfig:
    dt: float = 0.05
    damping: float = 0.5
    gravity: float = 9.81
    length: float = 1.0
    samples: int = 32
    box: list = field(default_factory=lambda: [1.0, 1.0])


def pendulum_step(x, cfg):
    theta, omega = x[:, :1], x[:, 1:]
    omega_dot = -cfg.gravity / cfg.length * torch.sin(theta) - cfg.damping * omega
    return torch.cat([theta + cfg.dt * omega, omega + cfg.dt * omega_dot], dim=1)


class LyapunovNet(nn.Module):
    def __init__(self, hidden=16, eps=0.01):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 2))
        self.eps = eps

    def forward(self, x):
        x_star = torch.zeros(1, 2)
        return ((self.phi(x) - self.phi(x_star)) ** 2).sum(1) + self.eps * (x ** 2).sum(1)


class LyapunovTrainer:
    def __init__(self, cfg, decrease_rate=0.1):
        self.cfg = cfg
        self.V = LyapunovNet()
        self.optimizer = torch.optim.LBFGS(self.V.parameters(), lr=0.5, max_iter=4)
        self.decrease_rate = decrease_rate
        self.losses = []

    def sample_states(self):
        box = torch.tensor(self.cfg.box)
        return (torch.rand(self.cfg.samples, 2) * 2 - 1) * box

    def lyapunov_derivative_loss(self, x):
        v, v_next = self.V(x), self.V(pendulum_step(x, self.cfg))
        return torch.relu(v_next - v + self.decrease_rate * self.cfg.dt * v).mean()

    def lyapunov_positivity_loss(self, x):
        return torch.relu(0.01 * (x ** 2).sum(1) - self.V(x)).mean()

    def total_loss(self, x):
        return self.lyapunov_derivative_loss(x) + self.lyapunov_positivity_loss(x)

    def train(self, iterations):
        for it in range(iterations):
            x = self.sample_states()

            def closure():
                self.optimizer.zero_grad()
                loss = self.total_loss(x)
                loss.backward()
                self.losses.append(loss)  # expect: GG301
                return loss

            self.optimizer.step(closure)
            print(f"iter {it} loss {self.losses[-1].item():.5f} ({len(self.losses)} closure calls)")


def main():
    torch.manual_seed(0)
    trainer = LyapunovTrainer(PendulumConfig())
    before = trainer.V.phi[0].weight.detach().clone()
    trainer.train(iterations=3)
    print("weights moved:", (trainer.V.phi[0].weight - before).abs().max().item())


if __name__ == "__main__":
    main()
