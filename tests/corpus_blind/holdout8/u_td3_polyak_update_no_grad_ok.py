# corpus: TD3 agent whose target networks are deepcopies (parameters still require grad) updated by an in-place polyak_update wrapped in torch.no_grad; actor loss rebuilt after the critic step (correct)
# source: https://github.com/DLR-RM/stable-baselines3/pull/106
import argparse
import copy
from typing import Iterable

import torch
import torch.nn as nn
import torch.nn.functional as F


def polyak_update(params: Iterable[nn.Parameter], target_params: Iterable[nn.Parameter], tau: float) -> None:
    with torch.no_grad():
        for param, target_param in zip(params, target_params):
            target_param.data.mul_(1 - tau)
            torch.add(target_param.data, param.data, alpha=tau, out=target_param.data)


def zip_strict(*iterables):
    lists = [list(it) for it in iterables]
    assert len({len(x) for x in lists}) == 1
    return zip(*lists)


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, act_dim), nn.Tanh())

    def forward(self, obs):
        return self.mu(obs)


class ContinuousCritic(nn.Module):
    def __init__(self, obs_dim, act_dim, n_critics=2):
        super().__init__()
        self.q_networks = nn.ModuleList(
            nn.Sequential(nn.Linear(obs_dim + act_dim, 64), nn.ReLU(), nn.Linear(64, 1)) for _ in range(n_critics)
        )

    def forward(self, obs, actions):
        qvalue_input = torch.cat([obs, actions], dim=1)
        return tuple(q_net(qvalue_input) for q_net in self.q_networks)

    def q1_forward(self, obs, actions):
        return self.q_networks[0](torch.cat([obs, actions], dim=1))


class TD3:
    def __init__(self, obs_dim, act_dim, args):
        self.args = args
        self.actor = Actor(obs_dim, act_dim)
        self.actor_target = copy.deepcopy(self.actor)
        self.critic = ContinuousCritic(obs_dim, act_dim)
        self.critic_target = copy.deepcopy(self.critic)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=args.lr)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=args.lr)
        self._n_updates = 0

    def train(self, replay_data, gradient_steps):
        actor_losses, critic_losses = [], []
        for _ in range(gradient_steps):
            self._n_updates += 1
            obs, actions, rewards, next_obs, dones = replay_data()
            with torch.no_grad():
                noise = (torch.randn_like(actions) * self.args.target_policy_noise).clamp(-0.5, 0.5)
                next_actions = (self.actor_target(next_obs) + noise).clamp(-1, 1)
                next_q_values = torch.cat(self.critic_target(next_obs, next_actions), dim=1)
                next_q_values, _ = torch.min(next_q_values, dim=1, keepdim=True)
                target_q_values = rewards + (1 - dones) * self.args.gamma * next_q_values

            current_q_values = self.critic(obs, actions)
            critic_loss = sum(F.mse_loss(current_q, target_q_values) for current_q in current_q_values)
            critic_losses.append(critic_loss.item())
            self.critic_optimizer.zero_grad()
            critic_loss.backward()
            self.critic_optimizer.step()

            if self._n_updates % self.args.policy_delay == 0:
                actor_loss = -self.critic.q1_forward(obs, self.actor(obs)).mean()
                actor_losses.append(actor_loss.item())
                self.actor_optimizer.zero_grad()
                actor_loss.backward()
                self.actor_optimizer.step()

                polyak_update(self.critic.parameters(), self.critic_target.parameters(), self.args.tau)
                polyak_update(self.actor.parameters(), self.actor_target.parameters(), self.args.tau)
        return critic_losses, actor_losses


def make_sampler(obs_dim, act_dim, n=32):
    def sample():
        return (torch.randn(n, obs_dim), torch.rand(n, act_dim) * 2 - 1, torch.randn(n, 1),
                torch.randn(n, obs_dim), torch.zeros(n, 1))
    return sample


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--tau", type=float, default=0.005)
    parser.add_argument("--policy-delay", type=int, default=2)
    parser.add_argument("--target-policy-noise", type=float, default=0.2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    agent = TD3(8, 2, args)
    before = agent.critic_target.q_networks[0][0].weight.clone()
    critic_losses, actor_losses = agent.train(make_sampler(8, 2), gradient_steps=6)
    assert not torch.equal(before, agent.critic_target.q_networks[0][0].weight)
    print(critic_losses[-1], actor_losses[-1])


if __name__ == "__main__":
    main()
