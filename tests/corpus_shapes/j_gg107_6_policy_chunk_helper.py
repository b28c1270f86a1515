# corpus: Gaussian policy module splits its head output with chunk() in a helper and clamps log_std in place in another helper method
# raises: RuntimeError: Output 1 of Split is a view and is being modified inplace
# source: docs/rules/GG107.md (shape: 6)
import torch
import torch.nn as nn


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim=5, act_dim=2, log_std_bounds=(-5.0, 2.0)):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU(), nn.Linear(16, 2 * act_dim))
        self.log_std_min, self.log_std_max = log_std_bounds

    def _split(self, out):
        return out.chunk(2, dim=-1)

    def _bound(self, log_std):
        log_std.clamp_(self.log_std_min, self.log_std_max)  # expect: GG107
        return log_std

    def forward(self, obs):
        mean, log_std = self._split(self.trunk(obs))
        std = self._bound(log_std).exp()
        return mean + torch.randn_like(mean) * std


torch.manual_seed(0)
policy = GaussianPolicy()
opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
for step in range(2):
    actions = policy(torch.randn(3, 5))
    loss = actions.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
