# corpus: hand-written HMC sampler for Bayesian logistic regression; the leapfrog integrator returns the graph-carrying potential energy and the sampler accumulates it into a running diagnostic, keeping every step's autograd graph alive (memory leak)
# source: https://github.com/pyro-ppl/pyro/pull/1914
from dataclasses import dataclass, field

import torch


@dataclass
class HMCStats:
    accepted: int = 0
    proposals: int = 0
    energy_sum: torch.Tensor = field(default_factory=lambda: torch.zeros(()))


class LogisticPosterior:
    def __init__(self, X, y, prior_scale=2.0):
        self.X, self.y, self.prior_scale = X, y, prior_scale

    def potential(self, w):
        logits = self.X @ w
        log_lik = -torch.nn.functional.binary_cross_entropy_with_logits(logits, self.y, reduction="sum")
        log_prior = -0.5 * (w / self.prior_scale).pow(2).sum()
        return -(log_lik + log_prior)


def potential_and_grad(posterior, w):
    w = w.detach().requires_grad_(True)
    u = posterior.potential(w)
    (g,) = torch.autograd.grad(u, w)
    return u, g


def leapfrog(posterior, w, p, step_size, n_steps):
    u, g = potential_and_grad(posterior, w)
    p = p - 0.5 * step_size * g
    for i in range(n_steps):
        w = w + step_size * p
        u, g = potential_and_grad(posterior, w)
        if i < n_steps - 1:
            p = p - step_size * g
    p = p - 0.5 * step_size * g
    return w, p, u


class HMCSampler:
    def __init__(self, posterior, dim, step_size=0.05, n_steps=10):
        self.posterior = posterior
        self.w = torch.zeros(dim)
        self.step_size, self.n_steps = step_size, n_steps
        self.stats = HMCStats()

    def sample(self):
        p0 = torch.randn_like(self.w)
        u0, _ = potential_and_grad(self.posterior, self.w)
        w_new, p_new, u_new = leapfrog(self.posterior, self.w, p0, self.step_size, self.n_steps)
        h0 = u0.detach() + 0.5 * p0.pow(2).sum()
        h1 = u_new.detach() + 0.5 * p_new.pow(2).sum()
        self.stats.proposals += 1
        if torch.rand(()) < torch.exp(h0 - h1).clamp(max=1.0):
            self.w = w_new.detach()
            self.stats.accepted += 1
        self.stats.energy_sum = self.stats.energy_sum + u_new  # expect: GG301
        return self.w


def main():
    torch.manual_seed(0)
    X = torch.randn(64, 3)
    w_true = torch.tensor([1.0, -2.0, 0.5])
    y = torch.bernoulli(torch.sigmoid(X @ w_true))
    sampler = HMCSampler(LogisticPosterior(X, y), dim=3)
    draws = torch.stack([sampler.sample() for _ in range(20)])
    mean_energy = sampler.stats.energy_sum / sampler.stats.proposals
    print("posterior mean", draws[5:].mean(0), "accept", sampler.stats.accepted / sampler.stats.proposals,
          "mean U", round(mean_energy.item(), 3))


if __name__ == "__main__":
    main()
