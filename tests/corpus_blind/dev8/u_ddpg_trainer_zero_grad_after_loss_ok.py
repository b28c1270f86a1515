# corpus: DDPG Trainer.optimize computes the critic loss first and calls zero_grad only afterwards (still before backward), then rebuilds the actor loss through the updated critic; targets from detached target networks, soft update through .data (correct)
# source: https://github.com/vy007vikas/PyTorch-ActorCriticRL/issues/7
import random
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH_SIZE = 32
LEARNING_RATE = 1e-3
GAMMA = 0.99
TAU = 0.001


def soft_update(target, source, tau):
    for target_param, param in zip(target.parameters(), source.parameters()):
        target_param.data.copy_(target_param.data * (1.0 - tau) + param.data * tau)


def hard_update(target, source):
    for target_param, param in zip(target.parameters(), source.parameters()):
        target_param.data.copy_(param.data)


class Critic(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.fcs1 = nn.Linear(state_dim, 64)
        self.fcs2 = nn.Linear(64, 32)
        self.fca1 = nn.Linear(action_dim, 32)
        self.fc2 = nn.Linear(64, 32)
        self.fc3 = nn.Linear(32, 1)

    def forward(self, state, action):
        s2 = F.relu(self.fcs2(F.relu(self.fcs1(state))))
        a1 = F.relu(self.fca1(action))
        return self.fc3(F.relu(self.fc2(torch.cat((s2, a1), dim=1))))


class Actor(nn.Module):
    def __init__(self, state_dim, action_dim, action_lim):
        super().__init__()
        self.action_lim = action_lim
        self.net = nn.Sequential(nn.Linear(state_dim, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, action_dim), nn.Tanh())

    def forward(self, state):
        return self.net(state) * self.action_lim


class MemoryBuffer:
    def __init__(self, size):
        self.buffer = deque(maxlen=size)

    def sample(self, count):
        batch = random.sample(self.buffer, min(count, len(self.buffer)))
        s, a, r, s1 = (np.float32([x[i] for x in batch]) for i in range(4))
        return s, a, r, s1

    def add(self, s, a, r, s1):
        self.buffer.append((s, a, r, s1))


class Trainer:
    def __init__(self, state_dim, action_dim, action_lim, ram):
        self.ram = ram
        self.actor = Actor(state_dim, action_dim, action_lim)
        self.target_actor = Actor(state_dim, action_dim, action_lim)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), LEARNING_RATE)
        self.critic = Critic(state_dim, action_dim)
        self.target_critic = Critic(state_dim, action_dim)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), LEARNING_RATE)
        hard_update(self.target_actor, self.actor)
        hard_update(self.target_critic, self.critic)

    def get_exploration_action(self, state):
        action = self.actor.forward(torch.from_numpy(state)).detach()
        return action.numpy() + np.random.normal(0, 0.1, size=action.shape).astype(np.float32)

    def optimize(self):
        s1, a1, r1, s2 = self.ram.sample(BATCH_SIZE)
        s1, a1, r1, s2 = (torch.from_numpy(x) for x in (s1, a1, r1, s2))

        # ---------------------- optimize critic ----------------------
        a2 = self.target_actor.forward(s2).detach()
        next_val = torch.squeeze(self.target_critic.forward(s2, a2).detach())
        y_expected = r1 + GAMMA * next_val
        y_predicted = torch.squeeze(self.critic.forward(s1, a1))
        loss_critic = F.smooth_l1_loss(y_predicted, y_expected)
        self.critic_optimizer.zero_grad()
        loss_critic.backward()
        self.critic_optimizer.step()

        # ---------------------- optimize actor ----------------------
        pred_a1 = self.actor.forward(s1)
        loss_actor = -1 * torch.sum(self.critic.forward(s1, pred_a1))
        self.actor_optimizer.zero_grad()
        loss_actor.backward()
        self.actor_optimizer.step()

        soft_update(self.target_actor, self.actor, TAU)
        soft_update(self.target_critic, self.critic, TAU)
        return loss_critic.item(), loss_actor.item()


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    ram = MemoryBuffer(1000)
    trainer = Trainer(3, 1, 2.0, ram)
    observation = np.random.randn(3).astype(np.float32)
    for step in range(60):
        action = trainer.get_exploration_action(observation)
        new_observation = np.random.randn(3).astype(np.float32)
        reward = float(-np.abs(action).sum())
        ram.add(observation, action, reward, new_observation)
        observation = new_observation
        if step >= BATCH_SIZE:
            losses = trainer.optimize()
    print(losses)


if __name__ == "__main__":
    main()
