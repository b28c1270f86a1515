import torch
import torch.nn as nn
from torch.distributions import Normal


def mlp(in_dim, out_dim, hidden=32):
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, out_dim))


class QNetwork(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.q = mlp(state_dim + action_dim, 1)

    def forward(self, x):
        return self.q(x)


class TwinnedQNetwork(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.Q1 = QNetwork(state_dim, action_dim)
        self.Q2 = QNetwork(state_dim, action_dim)

    def forward(self, states, actions):
        x = torch.cat([states, actions], dim=1)
        return self.Q1(x), self.Q2(x)


class GaussianPolicy(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.policy = mlp(state_dim, 2 * action_dim)

    def sample(self, states):
        means, log_stds = torch.chunk(self.policy(states), 2, dim=-1)
        log_stds = torch.clamp(log_stds, min=-20, max=2)
        normals = Normal(means, log_stds.exp())
        xs = normals.rsample()
        actions = torch.tanh(xs)
        log_probs = normals.log_prob(xs) - torch.log(1 - actions.pow(2) + 1e-6)
        entropies = -log_probs.sum(dim=1, keepdim=True)
        return actions, entropies, torch.tanh(means)
