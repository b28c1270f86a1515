# corpus: correct: gradient penalty settings in a dataclass; the penalty function calls autograd.grad with create_graph=True before the penalty joins the critic loss
# source: docs/rules/GG202.md (shape: 4, 2)
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class GPConfig:
    lambda_gp: float = 10.0
    target_norm: float = 1.0
    critic_lr: float = 1e-3


def gradient_penalty(critic, real, fake, cfg):
    alpha = torch.rand(real.shape[0], 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    grads, = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
    return cfg.lambda_gp * ((grads.norm(dim=1) - cfg.target_norm) ** 2).mean()


def critic_loss(critic, real, fake, cfg):
    return critic(fake).mean() - critic(real).mean() + gradient_penalty(critic, real, fake, cfg)


def main():
    torch.manual_seed(0)
    cfg = GPConfig()
    critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam(critic.parameters(), lr=cfg.critic_lr)
    for step in range(3):
        loss = critic_loss(critic, torch.randn(8, 2), torch.randn(8, 2), cfg)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
