from typing import NamedTuple, Tuple

import torch
import torch.nn as nn
from torch.distributions import Normal


class RNNStates(NamedTuple):
    pi: Tuple[torch.Tensor, torch.Tensor]
    vf: Tuple[torch.Tensor, torch.Tensor]


class RecurrentActorCriticPolicy(nn.Module):
    """MlpLstmPolicy-like policy: separate LSTMs for actor and critic, Gaussian actions."""

    def __init__(self, obs_dim, action_dim, lstm_hidden_size=16, net_arch=32):
        super().__init__()
        self.lstm_hidden_size = lstm_hidden_size
        self.lstm_actor = nn.LSTM(obs_dim, lstm_hidden_size)
        self.lstm_critic = nn.LSTM(obs_dim, lstm_hidden_size)
        self.policy_net = nn.Sequential(nn.Linear(lstm_hidden_size, net_arch), nn.Tanh())
        self.value_net = nn.Sequential(nn.Linear(lstm_hidden_size, net_arch), nn.Tanh(), nn.Linear(net_arch, 1))
        self.action_net = nn.Linear(net_arch, action_dim)
        self.log_std = nn.Parameter(torch.zeros(action_dim))

    def initial_state(self, n_envs):
        zeros = torch.zeros(1, n_envs, self.lstm_hidden_size)
        return RNNStates((zeros, zeros.clone()), (zeros.clone(), zeros.clone()))

    @staticmethod
    def _process_sequence(features, lstm_states, episode_starts, lstm):
        # one step per env: reset the state of envs whose episode just started
        mask = (1.0 - episode_starts).view(1, -1, 1)
        h, c = lstm_states
        out, (h, c) = lstm(features.unsqueeze(0), (mask * h, mask * c))
        return out.squeeze(0), (h, c)

    def forward(self, obs, lstm_states, episode_starts, deterministic=False):
        latent_pi, states_pi = self._process_sequence(obs, lstm_states.pi, episode_starts, self.lstm_actor)
        latent_vf, states_vf = self._process_sequence(obs, lstm_states.vf, episode_starts, self.lstm_critic)
        mean = self.action_net(self.policy_net(latent_pi))
        dist = Normal(mean, self.log_std.exp())
        actions = mean if deterministic else dist.rsample()
        values = self.value_net(latent_vf)
        return actions, values, dist.log_prob(actions).sum(-1), RNNStates(states_pi, states_vf)
