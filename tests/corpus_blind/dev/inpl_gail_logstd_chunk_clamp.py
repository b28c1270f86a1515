# corpus: Gaussian policy splits the network output with chunk() and clamps the log-std view in place, which autograd rejects at once
# raises: RuntimeError: Output 1 of Split is a view and is being modified inplace
# source: https://github.com/toshikwa/gail-airl-ppo.pytorch/issues/13
import math

import torch
import torch.nn as nn


def build_mlp(input_dim, output_dim, hidden_units=(16, 16)):
    layers = []
    units = input_dim
    for next_units in hidden_units:
        layers.append(nn.Linear(units, next_units))
        layers.append(nn.Tanh())
        units = next_units
    layers.append(nn.Linear(units, output_dim))
    return nn.Sequential(*layers)


def reparameterize(means, log_stds):
    noises = torch.randn_like(means)
    us = means + noises * log_stds.exp()
    actions = torch.tanh(us)
    log_pis = (-0.5 * noises.pow(2) - log_stds).sum(dim=-1, keepdim=True) - 0.5 * math.log(2 * math.pi) * log_stds.size(-1)
    log_pis -= torch.log(1 - actions.pow(2) + 1e-6).sum(dim=-1, keepdim=True)
    return actions, log_pis


class StateDependentPolicy(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.net = build_mlp(state_dim, 2 * action_dim)

    def forward(self, states):
        return torch.tanh(self.net(states).chunk(2, dim=-1)[0])

    def sample(self, states):
        means, log_stds = self.net(states).chunk(2, dim=-1)
        return reparameterize(means, log_stds.clamp_(-20, 2))  # expect: GG107


class SAC:
    def __init__(self, state_dim, action_dim):
        self.actor = StateDependentPolicy(state_dim, action_dim)
        self.critic = nn.Linear(state_dim + action_dim, 1)
        self.optim_actor = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.alpha = 0.2

    def update_actor(self, states):
        actions, log_pis = self.actor.sample(states)  # also: GG107
        qs = self.critic(torch.cat([states, actions], dim=-1))
        loss_actor = self.alpha * log_pis.mean() - qs.mean()
        self.optim_actor.zero_grad()
        loss_actor.backward()
        self.optim_actor.step()


def main():
    torch.manual_seed(0)
    algo = SAC(state_dim=5, action_dim=2)
    states = torch.randn(8, 5)
    algo.update_actor(states)


if __name__ == "__main__":
    main()
