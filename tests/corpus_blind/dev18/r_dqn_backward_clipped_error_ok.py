# corpus: DQN_pytorch-style learner calls q_s_a.backward(clipped_error.data) on the non-scalar [batch] Q-values, passing the clipped, sign-flipped Bellman error as the explicit gradient (the fix from the thread); this is a legitimate non-scalar backward.
# source: https://github.com/dxyang/DQN_pytorch/issues/7
import random
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

OptimizerSpec = namedtuple("OptimizerSpec", ["constructor", "kwargs"])


class DQN(nn.Module):
    def __init__(self, in_features=4, num_actions=3):
        super().__init__()
        self.fc1 = nn.Linear(in_features, 32)
        self.fc2 = nn.Linear(32, 32)
        self.head = nn.Linear(32, num_actions)

    def forward(self, x):
        return self.head(F.relu(self.fc2(F.relu(self.fc1(x)))))


class ReplayBuffer:
    def __init__(self, size):
        self.size, self.storage = size, []

    def can_sample(self, batch_size):
        return batch_size + 1 <= len(self.storage)

    def store(self, obs, action, reward, next_obs, done):
        self.storage.append((obs, action, reward, next_obs, done))
        self.storage = self.storage[-self.size:]

    def sample(self, batch_size):
        batch = random.sample(self.storage, batch_size)
        obs, act, rew, next_obs, done = map(np.array, zip(*batch))
        return obs, act, rew, next_obs, done.astype(np.float32)


def select_epsilon_greedy_action(model, obs, t, num_actions):
    eps_threshold = max(0.1, 1.0 - t / 100.0)
    if random.random() > eps_threshold:
        with torch.no_grad():
            return model(torch.from_numpy(obs).float().unsqueeze(0)).argmax(1).item()
    return random.randrange(num_actions)


def dqn_learning(optimizer_spec, num_timesteps=60, batch_size=8, gamma=0.99,
                 learning_starts=16, learning_freq=2, target_update_freq=20, num_actions=3):
    Q = DQN(num_actions=num_actions)
    Q_target = DQN(num_actions=num_actions)
    Q_target.load_state_dict(Q.state_dict())
    optimizer = optimizer_spec.constructor(Q.parameters(), **optimizer_spec.kwargs)
    replay_buffer = ReplayBuffer(1000)
    num_param_updates = 0
    last_obs = np.random.randn(4).astype(np.float32)
    for t in range(num_timesteps):
        action = select_epsilon_greedy_action(Q, last_obs, t, num_actions)
        obs = np.random.randn(4).astype(np.float32)
        reward, done = float(action == 1), (t % 15 == 14)
        replay_buffer.store(last_obs, action, reward, obs, done)
        last_obs = obs
        if t > learning_starts and t % learning_freq == 0 and replay_buffer.can_sample(batch_size):
            obs_t, act_t, rew_t, obs_tp1, done_mask = replay_buffer.sample(batch_size)
            obs_t = torch.from_numpy(obs_t).float()
            act_t = torch.from_numpy(act_t).long()
            rew_t = torch.from_numpy(rew_t).float()
            obs_tp1 = torch.from_numpy(obs_tp1).float()
            done_mask = torch.from_numpy(done_mask)

            q_values = Q(obs_t)
            q_s_a = q_values.gather(1, act_t.unsqueeze(1))
            q_s_a = q_s_a.squeeze()
            q_tp1_values = Q_target(obs_tp1).detach()
            q_s_a_prime, a_prime = q_tp1_values.max(1)
            q_s_a_prime = (1 - done_mask) * q_s_a_prime
            error = rew_t + gamma * q_s_a_prime - q_s_a
            clipped_error = -1.0 * error.clamp(-1, 1)
            optimizer.zero_grad()
            q_s_a.backward(clipped_error.data)
            optimizer.step()
            num_param_updates += 1
            if num_param_updates % target_update_freq == 0:
                Q_target.load_state_dict(Q.state_dict())
            print(f"t {t} update {num_param_updates} mean |error| {error.abs().mean().item():.3f}")
    return Q


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    optimizer_spec = OptimizerSpec(constructor=optim.RMSprop, kwargs=dict(lr=0.00025, alpha=0.95, eps=0.01))
    dqn_learning(optimizer_spec)


if __name__ == "__main__":
    main()
