# corpus: DDPG training loop (pytorch-ddpg-naf style) sums the value/policy loss tensors returned by update_parameters into per-episode totals for logging; each total keeps every update's autograd graph alive, so memory grows with the number of updates.
# source: https://github.com/ikostrikov/pytorch-ddpg-naf/issues/14
import random
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam

Transition = namedtuple("Transition", ("state", "action", "mask", "next_state", "reward"))


class ReplayMemory:
    def __init__(self, capacity):
        self.capacity = capacity
        self.memory = []
        self.position = 0

    def push(self, *args):
        if len(self.memory) < self.capacity:
            self.memory.append(None)
        self.memory[self.position] = Transition(*args)
        self.position = (self.position + 1) % self.capacity

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class OUNoise:
    def __init__(self, action_dimension, scale=0.1, mu=0, theta=0.15, sigma=0.2):
        self.action_dimension, self.scale = action_dimension, scale
        self.mu, self.theta, self.sigma = mu, theta, sigma
        self.state = np.ones(action_dimension) * mu

    def reset(self):
        self.state = np.ones(self.action_dimension) * self.mu

    def noise(self):
        dx = self.theta * (self.mu - self.state) + self.sigma * np.random.randn(len(self.state))
        self.state = self.state + dx
        return self.state * self.scale


def soft_update(target, source, tau):
    for target_param, param in zip(target.parameters(), source.parameters()):
        target_param.data.copy_(target_param.data * (1.0 - tau) + param.data * tau)


def hard_update(target, source):
    for target_param, param in zip(target.parameters(), source.parameters()):
        target_param.data.copy_(param.data)


class Actor(nn.Module):
    def __init__(self, hidden_size, num_inputs, action_dim):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs, hidden_size)
        self.ln1 = nn.LayerNorm(hidden_size)
        self.linear2 = nn.Linear(hidden_size, hidden_size)
        self.ln2 = nn.LayerNorm(hidden_size)
        self.mu = nn.Linear(hidden_size, action_dim)
        self.mu.weight.data.mul_(0.1)
        self.mu.bias.data.mul_(0.1)

    def forward(self, inputs):
        x = F.relu(self.ln1(self.linear1(inputs)))
        x = F.relu(self.ln2(self.linear2(x)))
        return torch.tanh(self.mu(x))


class Critic(nn.Module):
    def __init__(self, hidden_size, num_inputs, action_dim):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs, hidden_size)
        self.ln1 = nn.LayerNorm(hidden_size)
        self.linear2 = nn.Linear(hidden_size + action_dim, hidden_size)
        self.ln2 = nn.LayerNorm(hidden_size)
        self.V = nn.Linear(hidden_size, 1)

    def forward(self, inputs, actions):
        x = F.relu(self.ln1(self.linear1(inputs)))
        x = torch.cat((x, actions), 1)
        x = F.relu(self.ln2(self.linear2(x)))
        return self.V(x)


class DDPG:
    def __init__(self, gamma, tau, hidden_size, num_inputs, action_dim):
        self.actor = Actor(hidden_size, num_inputs, action_dim)
        self.actor_target = Actor(hidden_size, num_inputs, action_dim)
        self.actor_optim = Adam(self.actor.parameters(), lr=1e-4)
        self.critic = Critic(hidden_size, num_inputs, action_dim)
        self.critic_target = Critic(hidden_size, num_inputs, action_dim)
        self.critic_optim = Adam(self.critic.parameters(), lr=1e-3)
        self.gamma, self.tau = gamma, tau
        hard_update(self.actor_target, self.actor)
        hard_update(self.critic_target, self.critic)

    def select_action(self, state, action_noise=None):
        self.actor.eval()
        with torch.no_grad():
            mu = self.actor(state)
        self.actor.train()
        if action_noise is not None:
            mu = mu + torch.Tensor(action_noise.noise())
        return mu.clamp(-1, 1)

    def update_parameters(self, batch):
        state_batch = torch.cat(batch.state)
        action_batch = torch.cat(batch.action)
        reward_batch = torch.cat(batch.reward)
        mask_batch = torch.cat(batch.mask)
        next_state_batch = torch.cat(batch.next_state)

        with torch.no_grad():
            next_action_batch = self.actor_target(next_state_batch)
            next_state_action_values = self.critic_target(next_state_batch, next_action_batch)
        reward_batch = reward_batch.unsqueeze(1)
        mask_batch = mask_batch.unsqueeze(1)
        expected_state_action_batch = reward_batch + (self.gamma * mask_batch * next_state_action_values)

        self.critic_optim.zero_grad()
        state_action_batch = self.critic(state_batch, action_batch)
        value_loss = F.mse_loss(state_action_batch, expected_state_action_batch)
        value_loss.backward()
        self.critic_optim.step()

        self.actor_optim.zero_grad()
        policy_loss = -self.critic(state_batch, self.actor(state_batch))
        policy_loss = policy_loss.mean()
        policy_loss.backward()
        self.actor_optim.step()

        soft_update(self.actor_target, self.actor, self.tau)
        soft_update(self.critic_target, self.critic, self.tau)
        return value_loss, policy_loss


class ScalarWriter:
    def __init__(self):
        self.scalars = {}

    def add_scalar(self, tag, value, step):
        value = value.item() if torch.is_tensor(value) else value
        self.scalars.setdefault(tag, []).append((step, value))


class PointMassEnv:
    def __init__(self, dim=3):
        self.dim = dim
        self.s = None

    def reset(self):
        self.s = np.random.uniform(-1, 1, self.dim).astype(np.float32)
        return torch.Tensor(self.s[None])

    def step(self, action):
        self.s = np.clip(self.s + 0.1 * action, -2, 2).astype(np.float32)
        return torch.Tensor(self.s[None]), -float(np.square(self.s).sum()), False


def main(num_episodes=3, num_steps=20, batch_size=8, updates_per_step=2):
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    env = PointMassEnv()
    agent = DDPG(gamma=0.99, tau=0.001, hidden_size=32, num_inputs=3, action_dim=3)
    memory = ReplayMemory(1000)
    ounoise = OUNoise(3)
    writer = ScalarWriter()
    updates = 0
    history = []
    for i_episode in range(num_episodes):
        state = env.reset()
        ounoise.reset()
        episode_reward = 0.0
        episode_value_loss, episode_policy_loss = 0.0, 0.0
        for t in range(num_steps):
            action = agent.select_action(state, ounoise)
            next_state, reward, done = env.step(action.numpy()[0])
            episode_reward += reward
            mask = torch.Tensor([not done])
            memory.push(state, action, mask, next_state, torch.Tensor([reward]))
            state = next_state
            if len(memory) > batch_size:
                for _ in range(updates_per_step):
                    transitions = memory.sample(batch_size)
                    batch = Transition(*zip(*transitions))
                    value_loss, policy_loss = agent.update_parameters(batch)
                    episode_value_loss += value_loss  # expect: GG301
                    episode_policy_loss += policy_loss.item()
                    writer.add_scalar("loss/value", value_loss, updates)
                    writer.add_scalar("loss/policy", policy_loss, updates)
                    updates += 1
        history.append((episode_reward, episode_value_loss, episode_policy_loss))
        writer.add_scalar("episode/value_loss", episode_value_loss, i_episode)
        print(f"Episode {i_episode}: reward {episode_reward:.2f}, value loss {writer.scalars['episode/value_loss'][-1][1]:.4f}")
    return agent, history, updates


if __name__ == "__main__":
    main()
