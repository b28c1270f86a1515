# corpus: a NoisyLinear layer (a subclass of nn.Linear) resamples its noise buffers in place in forward; the target computation runs the same net again under no_grad, which overwrites the noise the first forward saved
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn
import torch.nn.functional as F


class NoisyLinear(nn.Linear):
    def __init__(self, in_features: int, out_features: int, sigma: float = 0.05) -> None:
        super().__init__(in_features, out_features)
        self.sigma_weight = nn.Parameter(torch.full((out_features, in_features), sigma))
        self.sigma_bias = nn.Parameter(torch.full((out_features,), sigma))
        self.register_buffer("eps_weight", torch.zeros(out_features, in_features))
        self.register_buffer("eps_bias", torch.zeros(out_features))

    def forward(self, x):
        self.eps_weight.normal_()  # expect: GG107
        self.eps_bias.normal_()  # expect: GG107
        weight = self.weight + self.sigma_weight * self.eps_weight
        bias = self.bias + self.sigma_bias * self.eps_bias
        return F.linear(x, weight, bias)


def td_loss(net, obs, actions, rewards, next_obs, gamma=0.9):
    q = net(obs).gather(1, actions[:, None]).squeeze(1)
    with torch.no_grad():
        target = rewards + gamma * net(next_obs).max(1).values
    return F.mse_loss(q, target)


torch.manual_seed(0)
net = nn.Sequential(NoisyLinear(4, 16), nn.ReLU(), NoisyLinear(16, 2))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for step in range(2):
    obs, next_obs = torch.randn(8, 4), torch.randn(8, 4)
    loss = td_loss(net, obs, torch.randint(0, 2, (8,)), torch.randn(8), next_obs)
    optimizer.zero_grad()
    loss.backward()  # also: GG107
    optimizer.step()
