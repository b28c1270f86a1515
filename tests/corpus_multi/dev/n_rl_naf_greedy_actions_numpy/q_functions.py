import torch
import torch.nn as nn

from action_value import QuadraticActionValue


class FCQuadraticStateQFunction(nn.Module):
    def __init__(self, obs_size, action_size, hidden=32, min_action=-1.0, max_action=1.0):
        super().__init__()
        self.action_size = action_size
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.v = nn.Linear(hidden, 1)
        self.mu_head = nn.Linear(hidden, action_size)
        self.mat_diag = nn.Linear(hidden, action_size)
        self.min_action = torch.full((action_size,), min_action)
        self.max_action = torch.full((action_size,), max_action)

    def forward(self, obs):
        h = self.body(obs)
        mat = torch.diag_embed(self.mat_diag(h).exp())
        return QuadraticActionValue(h, self.mu_head, mat, self.v(h), self.min_action, self.max_action)
