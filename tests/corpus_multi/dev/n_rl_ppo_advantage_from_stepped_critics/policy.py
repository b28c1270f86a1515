import torch
import torch.nn as nn
from torch.distributions import Categorical


class PolicyNetwork(nn.Module):
    def __init__(self, state_dim, n_actions, hidden=32, lr=3e-3, clip_eps=0.2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, hidden), nn.Tanh(), nn.Linear(hidden, n_actions))
        self.clip_eps = clip_eps
        self.optimizer = torch.optim.Adam(self.parameters(), lr=lr)

    def forward(self, state):
        return Categorical(logits=self.net(state))

    def act(self, state):
        with torch.no_grad():
            dist = self(state)
            action = dist.sample()
        return action, dist.log_prob(action)

    def clipped_surrogate(self, state, action, old_log_prob, advantage):
        ratio = torch.exp(self(state).log_prob(action) - old_log_prob)
        clipped = torch.clamp(ratio, 1 - self.clip_eps, 1 + self.clip_eps)
        return torch.min(ratio * advantage, clipped * advantage)

    def sga(self, surrogates):
        # stochastic gradient ascent on the mean clipped surrogate of the episode
        objective = torch.stack(surrogates).mean()
        self.optimizer.zero_grad()
        (-objective).backward()  # also: GG102
        self.optimizer.step()
        return objective.item()
