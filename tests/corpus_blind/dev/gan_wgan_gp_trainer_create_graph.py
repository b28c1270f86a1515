# corpus: WGAN-GP Trainer with a GradientPenalty module (create_graph=True), n_critic critic steps each with zero_grad, metrics kept as floats
# source: https://nn.labml.ai/gan/wasserstein/gradient_penalty/index.html
from dataclasses import dataclass, field

import torch
import torch.nn as nn


class GradientPenalty(nn.Module):
    def forward(self, x: torch.Tensor, f: torch.Tensor):
        batch_size = x.shape[0]
        gradients, *_ = torch.autograd.grad(outputs=f, inputs=x, grad_outputs=f.new_ones(f.shape), create_graph=True)
        gradients = gradients.reshape(batch_size, -1)
        norm = gradients.norm(2, dim=-1)
        return torch.mean((norm - 1) ** 2)


@dataclass
class Configs:
    latent: int = 4
    dim: int = 6
    batch: int = 8
    n_critic: int = 3
    gp_weight: float = 10.0
    steps: int = 3
    metrics: dict = field(default_factory=lambda: {"loss_d": [], "gp": [], "loss_g": []})


class Trainer:
    def __init__(self, c: Configs):
        self.c = c
        self.generator = nn.Sequential(nn.Linear(c.latent, 16), nn.ReLU(), nn.Linear(16, c.dim))
        self.critic = nn.Sequential(nn.Linear(c.dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.gradient_penalty = GradientPenalty()
        self.g_opt = torch.optim.Adam(self.generator.parameters(), lr=1e-4, betas=(0.0, 0.9))
        self.d_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-4, betas=(0.0, 0.9))

    def critic_step(self, real):
        c = self.c
        self.d_opt.zero_grad()
        with torch.no_grad():
            fake = self.generator(torch.randn(c.batch, c.latent))
        eps = torch.rand(c.batch, 1)
        x_hat = (eps * real + (1 - eps) * fake).requires_grad_()
        f_hat = self.critic(x_hat)
        gp = self.gradient_penalty(x_hat, f_hat)
        loss = self.critic(fake).mean() - self.critic(real).mean() + c.gp_weight * gp
        loss.backward()
        self.d_opt.step()
        self.c.metrics["loss_d"].append(loss.item())
        self.c.metrics["gp"].append(gp.item())
        return gp

    def generator_step(self):
        c = self.c
        self.g_opt.zero_grad()
        loss = -self.critic(self.generator(torch.randn(c.batch, c.latent))).mean()
        loss.backward()
        self.g_opt.step()
        self.c.metrics["loss_g"].append(loss.item())

    def run(self):
        for _ in range(self.c.steps):
            for _ in range(self.c.n_critic):
                self.last_gp = self.critic_step(torch.randn(self.c.batch, self.c.dim) + 2.0)
            self.generator_step()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(Configs())
    trainer.run()
    assert trainer.last_gp.grad_fn is not None
    assert all(p.grad is not None for p in trainer.critic.parameters())
    assert all(p.grad is not None for p in trainer.generator.parameters())
    assert all(isinstance(v, float) for vals in trainer.c.metrics.values() for v in vals)
    # the penalty alone reaches the critic's weights
    real = torch.randn(8, 6)
    x_hat = real.clone().requires_grad_()
    gp = trainer.gradient_penalty(x_hat, trainer.critic(x_hat))
    grads = torch.autograd.grad(gp, list(trainer.critic.parameters()), allow_unused=True)
    assert any(g is not None and g.abs().sum() > 0 for g in grads)
