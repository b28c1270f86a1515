# corpus: MAML-TRPO meta-learner hoists the KL gradient out of the Hessian-vector product; the HVP's autograd.grad frees its double-backward graph, so the second CG iteration fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/tristandeleu/pytorch-maml-rl/pull/13
import torch
import torch.nn as nn
from torch.distributions import Normal
from torch.nn.utils import parameters_to_vector, vector_to_parameters


class NormalMLPPolicy(nn.Module):
    def __init__(self, obs_dim=3, act_dim=2, hidden=8):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, act_dim))
        self.log_std = nn.Parameter(torch.zeros(act_dim))

    def forward(self, obs):
        return Normal(self.body(obs), self.log_std.exp())


def conjugate_gradient(f_Ax, b, cg_iters=4, residual_tol=1e-10):
    p = b.clone()
    r = b.clone()
    x = torch.zeros_like(b)
    rdotr = torch.dot(r, r)
    for i in range(cg_iters):
        z = f_Ax(p)  # also: GG101
        v = rdotr / torch.dot(p, z)
        x += v * p
        r -= v * z
        newrdotr = torch.dot(r, r)
        p = r + (newrdotr / rdotr) * p
        rdotr = newrdotr
        if rdotr.item() < residual_tol:
            break
    return x


class MetaLearner:
    def __init__(self, policy, max_kl=1e-2, damping=1e-2):
        self.policy = policy
        self.max_kl = max_kl
        self.damping = damping

    def sample_episodes(self, n=6):
        obs = torch.randn(n, 3)
        with torch.no_grad():
            actions = self.policy(obs).sample()
        advantages = torch.randn(n)
        return obs, actions, advantages

    def kl_divergence(self, episodes, old_pi):
        obs, _, _ = episodes
        return torch.distributions.kl_divergence(old_pi, self.policy(obs)).sum(-1).mean()

    def surrogate_loss(self, episodes, old_pi):
        obs, actions, advantages = episodes
        pi = self.policy(obs)
        ratio = torch.exp(pi.log_prob(actions).sum(-1) - old_pi.log_prob(actions).sum(-1))
        return -(ratio * advantages).mean()

    def hessian_vector_product(self, episodes, old_pi):
        kl = self.kl_divergence(episodes, old_pi)
        grads = torch.autograd.grad(kl, self.policy.parameters(), create_graph=True)
        flat_grad_kl = parameters_to_vector(grads)

        def _product(vector):
            grad_kl_v = torch.dot(flat_grad_kl, vector)
            grad2s = torch.autograd.grad(grad_kl_v, self.policy.parameters())  # expect: GG101
            flat_grad2_kl = parameters_to_vector(grad2s)
            return flat_grad2_kl + self.damping * vector

        return _product

    def step(self, episodes):
        obs = episodes[0]
        with torch.no_grad():
            dist = self.policy(obs)
            old_pi = Normal(dist.loc.clone(), dist.scale.clone())
        old_loss = self.surrogate_loss(episodes, old_pi)
        grads = parameters_to_vector(torch.autograd.grad(old_loss, self.policy.parameters()))
        hessian_vector_product = self.hessian_vector_product(episodes, old_pi)
        stepdir = conjugate_gradient(hessian_vector_product, grads)
        shs = 0.5 * torch.dot(stepdir, hessian_vector_product(stepdir))
        lagrange_multiplier = torch.sqrt(shs / self.max_kl)
        step = stepdir / lagrange_multiplier
        old_params = parameters_to_vector(self.policy.parameters()).detach()
        step_size = 1.0
        for _ in range(5):
            vector_to_parameters(old_params - step_size * step, self.policy.parameters())
            with torch.no_grad():
                loss = self.surrogate_loss(episodes, old_pi)
                kl = self.kl_divergence(episodes, old_pi)
            if loss.item() < old_loss.item() and kl.item() < self.max_kl:
                break
            step_size *= 0.5
        else:
            vector_to_parameters(old_params, self.policy.parameters())
        return old_loss.item()


def main():
    torch.manual_seed(0)
    learner = MetaLearner(NormalMLPPolicy())
    for batch in range(2):
        episodes = learner.sample_episodes()
        print("meta-batch", batch, "surrogate", learner.step(episodes))


if __name__ == "__main__":
    main()
