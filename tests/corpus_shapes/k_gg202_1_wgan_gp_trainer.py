# corpus: WGAN-GP Trainer whose gradient_penalty() method calls autograd.grad without create_graph; the penalty is added to the critic loss but has no gradient (silent)
# source: docs/rules/GG202.md (shape: 1)
import torch
import torch.nn as nn


class WGANGPTrainer:
    def __init__(self, generator, critic, g_opt, c_opt, lambda_gp=10.0):
        self.generator = generator
        self.critic = critic
        self.g_opt = g_opt
        self.c_opt = c_opt
        self.lambda_gp = lambda_gp
        self.last_penalty = None

    def gradient_penalty(self, real, fake):
        alpha = torch.rand(real.shape[0], 1)
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        scores = self.critic(mixed)
        grads, = torch.autograd.grad(scores.sum(), mixed)  # expect: GG202
        return ((grads.norm(dim=1) - 1) ** 2).mean()

    def critic_step(self, real):
        fake = self.generator(torch.randn(real.shape[0], 3)).detach()
        penalty = self.gradient_penalty(real, fake)
        loss = self.critic(fake).mean() - self.critic(real).mean() + self.lambda_gp * penalty
        self.c_opt.zero_grad()
        loss.backward()
        self.c_opt.step()
        self.last_penalty = penalty
        return loss.item()

    def generator_step(self, n):
        loss = -self.critic(self.generator(torch.randn(n, 3))).mean()
        self.g_opt.zero_grad()
        loss.backward()
        self.g_opt.step()
        return loss.item()

    def fit(self, real_batches):
        for real in real_batches:
            self.critic_step(real)
            self.generator_step(real.shape[0])


def main():
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2))
    critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
    trainer = WGANGPTrainer(
        generator,
        critic,
        torch.optim.Adam(generator.parameters(), lr=1e-3),
        torch.optim.Adam(critic.parameters(), lr=1e-3),
    )
    trainer.fit([torch.randn(8, 2) for _ in range(3)])
    return trainer


if __name__ == "__main__":
    main()
