import torch
import torch.nn as nn


class Policy_Network(nn.Module):
    """Parametrized Gaussian policy: shared trunk, mean and stddev heads."""

    def __init__(self, obs_space_dims, action_space_dims, hidden1=16, hidden2=32):
        super().__init__()
        self.shared_net = nn.Sequential(
            nn.Linear(obs_space_dims, hidden1), nn.Tanh(),
            nn.Linear(hidden1, hidden2), nn.Tanh(),
        )
        self.policy_mean_net = nn.Linear(hidden2, action_space_dims)
        self.policy_stddev_net = nn.Linear(hidden2, action_space_dims)

    def forward(self, x):
        shared_features = self.shared_net(x.float())
        action_means = self.policy_mean_net(shared_features)
        action_stddevs = torch.log(1 + torch.exp(self.policy_stddev_net(shared_features)))
        return action_means, action_stddevs
