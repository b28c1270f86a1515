# corpus: the same policy clamps the log-std out of place (correct)
import torch
import torch.nn as nn

torch.manual_seed(0)


def build_mlp(n_in, n_out, hidden=(32, 32)):
    layers = []
    for units in hidden:
        layers.append(nn.Linear(n_in, units))
        layers.append(nn.ReLU())
        n_in = units
    layers.append(nn.Linear(n_in, n_out))
    return nn.Sequential(*layers)


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim=6, act_dim=2):
        super().__init__()
        self.net = build_mlp(obs_dim, 2 * act_dim)

    def forward(self, obs):
        mean, log_std = self.net(obs).chunk(2, dim=-1)
        log_std = log_std.clamp(-5, 2)
        return mean + log_std.exp() * torch.randn_like(mean)


policy = GaussianPolicy()
policy(torch.randn(4, 6)).pow(2).mean().backward()
