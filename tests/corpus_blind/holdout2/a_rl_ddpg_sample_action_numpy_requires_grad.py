# corpus: DDPG Policy.sample_action converts the actor output (computed with grad, outside no_grad) straight to numpy for the OU-noise / env step
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/datawhalechina/joyrl-book/issues/18
import random
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, state_dim, action_dim, hidden_dim=32, init_w=3e-3):
        super().__init__()
        self.linear1 = nn.Linear(state_dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, action_dim)
        self.linear2.weight.data.uniform_(-init_w, init_w)

    def forward(self, x):
        return torch.tanh(self.linear2(F.relu(self.linear1(x))))


class Critic(nn.Module):
    def __init__(self, state_dim, action_dim, hidden_dim=32):
        super().__init__()
        self.linear1 = nn.Linear(state_dim + action_dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, 1)

    def forward(self, state, action):
        return self.linear2(F.relu(self.linear1(torch.cat([state, action], 1))))


class ReplayBuffer:
    def __init__(self, capacity):
        self.buffer = deque(maxlen=capacity)

    def push(self, transitions):
        self.buffer.append(transitions)

    def sample(self, batch_size):
        return zip(*random.sample(self.buffer, min(batch_size, len(self.buffer))))

    def __len__(self):
        return len(self.buffer)


class Policy:
    def __init__(self, state_dim=3, action_dim=1, batch_size=8, gamma=0.99, tau=1e-2):
        self.actor, self.critic = Actor(state_dim, action_dim), Critic(state_dim, action_dim)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-4)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        self.memory = ReplayBuffer(1000)
        self.batch_size, self.gamma, self.tau = batch_size, gamma, tau
        self.action_scale, self.action_bias = 2.0, 0.0

    def sample_action(self, state):
        state = torch.FloatTensor(state).unsqueeze(0)
        mu = self.actor(state)
        action = mu * self.action_scale + self.action_bias
        return action.cpu().numpy()[0]  # expect: GG110

    def update(self):
        if len(self.memory) < self.batch_size:
            return
        state, action, reward, next_state, done = self.memory.sample(self.batch_size)
        state, next_state = torch.FloatTensor(np.array(state)), torch.FloatTensor(np.array(next_state))
        action = torch.FloatTensor(np.array(action))
        reward = torch.FloatTensor(reward).unsqueeze(1)
        done = torch.FloatTensor(np.float32(done)).unsqueeze(1)
        actor_loss = -self.critic(state, self.actor(state)).mean()
        with torch.no_grad():
            target_value = self.critic(next_state, self.actor(next_state))
        expected_value = reward + (1.0 - done) * self.gamma * target_value
        critic_loss = F.mse_loss(self.critic(state, action / self.action_scale), expected_value)
        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()


def train(policy, train_eps=2, max_steps=12):
    rewards = []
    for i_ep in range(train_eps):
        state, ep_reward = np.random.randn(3).astype(np.float32), 0.0
        for i_step in range(max_steps):
            action = policy.sample_action(state)
            action = np.clip(action + 0.3 * np.random.randn(*action.shape), -2, 2)
            next_state, reward = np.random.randn(3).astype(np.float32), -float(np.square(action).sum())
            policy.memory.push((state, action, reward, next_state, False))
            state, ep_reward = next_state, ep_reward + reward
            policy.update()
        rewards.append(ep_reward)
    return rewards


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    print(train(Policy()))
