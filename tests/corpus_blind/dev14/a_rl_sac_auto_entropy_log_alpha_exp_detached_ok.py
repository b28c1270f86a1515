# corpus: SAC agent (medipixel rl_algorithms sac/agent.py shape) with automatic entropy tuning: log_alpha is a leaf optimized by its own optimizer, alpha_loss uses (log_prob + target_entropy).detach(), alpha = log_alpha.exp() is recomputed after the alpha step and detached before entering the actor and critic losses, target Q under no_grad, one backward per loss; correct
# source: https://github.com/medipixel/rl_algorithms/issues/171
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class TanhGaussianPolicy(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(state_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, action_dim)
        self.log_std = nn.Linear(hidden, action_dim)

    def forward(self, state):
        h = self.body(state)
        std = self.log_std(h).clamp(-20, 2).exp()
        dist = torch.distributions.Normal(self.mu(h), std)
        z = dist.rsample()
        action = torch.tanh(z)
        log_prob = (dist.log_prob(z) - torch.log(1 - action.pow(2) + 1e-7)).sum(-1, keepdim=True)
        return action, log_prob


class QFunction(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim + action_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, s, a):
        return self.net(torch.cat([s, a], dim=-1))


class SACAgent:
    def __init__(self, state_dim, action_dim, hyper_params):
        self.hyper_params = hyper_params
        self.actor = TanhGaussianPolicy(state_dim, action_dim)
        self.qf_1, self.qf_2 = QFunction(state_dim, action_dim), QFunction(state_dim, action_dim)
        self.qf_1_target, self.qf_2_target = copy.deepcopy(self.qf_1), copy.deepcopy(self.qf_2)
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.qf_optim = torch.optim.Adam(list(self.qf_1.parameters()) + list(self.qf_2.parameters()), lr=3e-4)
        self.target_entropy = -float(action_dim)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=3e-4)

    def update_model(self, experiences):
        states, actions, rewards, next_states, dones = experiences
        new_actions, log_prob = self.actor(states)

        if self.hyper_params["AUTO_ENTROPY_TUNING"]:
            alpha_loss = (-self.log_alpha * (log_prob + self.target_entropy).detach()).mean()
            self.alpha_optimizer.zero_grad()
            alpha_loss.backward()
            self.alpha_optimizer.step()
            alpha = self.log_alpha.exp().detach()
        else:
            alpha_loss = torch.zeros(1)
            alpha = self.hyper_params["W_ENTROPY"]

        with torch.no_grad():
            next_actions, next_log_prob = self.actor(next_states)
            q_next = torch.min(self.qf_1_target(next_states, next_actions), self.qf_2_target(next_states, next_actions))
            q_target = rewards + self.hyper_params["GAMMA"] * (1 - dones) * (q_next - alpha * next_log_prob)
        qf_loss = F.mse_loss(self.qf_1(states, actions), q_target) + F.mse_loss(self.qf_2(states, actions), q_target)
        self.qf_optim.zero_grad()
        qf_loss.backward()
        self.qf_optim.step()

        q_new = torch.min(self.qf_1(states, new_actions), self.qf_2(states, new_actions))
        actor_loss = (alpha * log_prob - q_new).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()

        tau = self.hyper_params["TAU"]
        with torch.no_grad():
            for net, target in ((self.qf_1, self.qf_1_target), (self.qf_2, self.qf_2_target)):
                for p, tp in zip(net.parameters(), target.parameters()):
                    tp.mul_(1 - tau).add_(tau * p)
        return actor_loss.item(), qf_loss.item(), alpha_loss.item(), float(alpha)


def sample_batch(state_dim, action_dim, n=32):
    return (torch.randn(n, state_dim), torch.rand(n, action_dim) * 2 - 1, torch.randn(n, 1),
            torch.randn(n, state_dim), (torch.rand(n, 1) > 0.95).float())


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    hp = {"AUTO_ENTROPY_TUNING": True, "W_ENTROPY": 0.2, "GAMMA": 0.99, "TAU": 5e-3}
    agent = SACAgent(5, 2, hp)
    for step in range(4):
        print(step, agent.update_model(sample_batch(5, 2)))


if __name__ == "__main__":
    main()
