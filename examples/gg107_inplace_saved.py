# gradguard reports GG107 (inplace-on-saved-tensor) on line 13.
import torch
import torch.nn as nn


class GaussianPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(5, 4)

    def forward(self, states):
        mean, log_std = self.net(states).chunk(2, dim=-1)
        log_std.clamp_(-20, 2)
        return mean + torch.randn_like(mean) * log_std.exp()


torch.manual_seed(0)
policy = GaussianPolicy()
policy(torch.randn(3, 5)).pow(2).mean().backward()
