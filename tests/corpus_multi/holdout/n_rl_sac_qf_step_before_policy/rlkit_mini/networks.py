import torch
import torch.nn as nn
from torch.distributions import Normal

LOG_STD_MIN, LOG_STD_MAX = -20.0, 2.0


class ConcatMlp(nn.Module):
    """Q(s, a): concatenates its inputs along the last dim."""

    def __init__(self, input_size, hidden_size=32, output_size=1):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, hidden_size)
        self.last_fc = nn.Linear(hidden_size, output_size)

    def forward(self, *inputs):
        h = torch.cat(inputs, dim=-1)
        h = torch.relu(self.fc1(h))
        h = torch.relu(self.fc2(h))
        return self.last_fc(h)


class TanhGaussianPolicy(nn.Module):
    def __init__(self, obs_dim, action_dim, hidden_size=32):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim, hidden_size)
        self.fc2 = nn.Linear(hidden_size, hidden_size)
        self.last_fc = nn.Linear(hidden_size, action_dim)
        self.last_fc_log_std = nn.Linear(hidden_size, action_dim)

    def forward(self, obs, reparameterize=True):
        h = torch.relu(self.fc1(obs))
        h = torch.relu(self.fc2(h))
        mean = self.last_fc(h)
        log_std = torch.clamp(self.last_fc_log_std(h), LOG_STD_MIN, LOG_STD_MAX)
        normal = Normal(mean, log_std.exp())
        pre_tanh = normal.rsample() if reparameterize else normal.sample()
        action = torch.tanh(pre_tanh)
        log_prob = normal.log_prob(pre_tanh) - torch.log(1 - action.pow(2) + 1e-6)
        return action, mean, log_std, log_prob.sum(dim=-1, keepdim=True)
