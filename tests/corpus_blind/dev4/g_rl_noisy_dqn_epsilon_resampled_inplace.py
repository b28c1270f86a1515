# corpus: Noisy-net double DQN (Conv1D trading model); NoisyLinear.forward resamples its epsilon buffer in place with normal_(), the first forward saved that buffer for sigma's gradient and the next-state forward overwrites it before backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/PacktPublishing/Deep-Reinforcement-Learning-Hands-On-Second-Edition/issues/21
import collections
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

Experience = collections.namedtuple("Experience", ["state", "action", "reward", "done", "last_state"])


class NoisyLinear(nn.Linear):
    def __init__(self, in_features, out_features, sigma_init=0.017, bias=True):
        super().__init__(in_features, out_features, bias=bias)
        self.sigma_weight = nn.Parameter(torch.full((out_features, in_features), sigma_init))
        self.register_buffer("epsilon_weight", torch.zeros(out_features, in_features))
        if bias:
            self.sigma_bias = nn.Parameter(torch.full((out_features,), sigma_init))
            self.register_buffer("epsilon_bias", torch.zeros(out_features))
        self.reset_parameters()

    def reset_parameters(self):
        std = math.sqrt(3 / self.in_features)
        nn.init.uniform_(self.weight, -std, std)
        nn.init.uniform_(self.bias, -std, std)

    def forward(self, input):
        self.epsilon_weight.normal_()  # expect: GG107
        bias = self.bias
        if bias is not None:
            self.epsilon_bias.normal_()  # expect: GG107
            bias = bias + self.sigma_bias * self.epsilon_bias
        v = self.sigma_weight * self.epsilon_weight + self.weight
        return F.linear(input, v, bias)


class DQNConv1DLarge(nn.Module):
    def __init__(self, shape, actions_n):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(shape[0], 8, 3, padding=1), nn.ReLU(),
            nn.MaxPool1d(2),
            nn.Conv1d(8, 8, 3, padding=1), nn.ReLU(),
        )
        out_size = 8 * (shape[1] // 2)
        self.fc_val = nn.Sequential(NoisyLinear(out_size, 16), nn.ReLU(), NoisyLinear(16, 1))
        self.fc_adv = nn.Sequential(NoisyLinear(out_size, 16), nn.ReLU(), NoisyLinear(16, actions_n))

    def forward(self, x):
        conv_out = self.conv(x).flatten(1)
        val = self.fc_val(conv_out)
        adv = self.fc_adv(conv_out)
        return val + (adv - adv.mean(dim=1, keepdim=True))


def unpack_batch(batch):
    states, actions, rewards, dones, last_states = [], [], [], [], []
    for exp in batch:
        states.append(exp.state)
        actions.append(exp.action)
        rewards.append(exp.reward)
        dones.append(exp.last_state is None)
        last_states.append(exp.state if exp.last_state is None else exp.last_state)
    return (np.array(states, dtype=np.float32), np.array(actions), np.array(rewards, dtype=np.float32),
            np.array(dones, dtype=bool), np.array(last_states, dtype=np.float32))


def calc_loss(batch, net, tgt_net, gamma):
    states, actions, rewards, dones, next_states = unpack_batch(batch)
    states_v = torch.tensor(states)
    next_states_v = torch.tensor(next_states)
    actions_v = torch.tensor(actions)
    rewards_v = torch.tensor(rewards)
    done_mask = torch.tensor(dones)

    state_action_values = net(states_v).gather(1, actions_v.unsqueeze(-1)).squeeze(-1)
    with torch.no_grad():
        next_state_actions = net(next_states_v).max(1)[1]
        next_state_values = tgt_net(next_states_v).gather(1, next_state_actions.unsqueeze(-1)).squeeze(-1)
        next_state_values[done_mask] = 0.0
    expected_state_action_values = next_state_values * gamma + rewards_v
    return F.mse_loss(state_action_values, expected_state_action_values)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    shape, actions_n = (3, 10), 3
    net = DQNConv1DLarge(shape, actions_n)
    tgt_net = DQNConv1DLarge(shape, actions_n)
    tgt_net.load_state_dict(net.state_dict())
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
    buffer = [Experience(np.random.randn(*shape), np.random.randint(actions_n), np.random.randn(),
                         False, np.random.randn(*shape)) for _ in range(32)]
    for step in range(3):
        batch = [buffer[i] for i in np.random.choice(len(buffer), 8)]
        optimizer.zero_grad()
        loss_v = calc_loss(batch, net, tgt_net, gamma=0.99)
        loss_v.backward()  # also: GG107
        optimizer.step()
        print(f"step {step}: loss {loss_v.item():.4f}")


if __name__ == "__main__":
    main()
