# corpus: Udacity-style DDPG agent (Unity reacher) that builds both the critic loss and the actor loss first, then steps the critic optimizer and only afterwards backpropagates the actor loss through critic weights Adam has just changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/QasimWani/RL-Unity/issues/5
import random
from collections import deque, namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)

BUFFER_SIZE, BATCH_SIZE, GAMMA, TAU = 1000, 16, 0.99, 1e-3
Experience = namedtuple("Experience", ["state", "action", "reward", "next_state", "done"])


class Actor(nn.Module):
    def __init__(self, state_size, action_size, fc1=32, fc2=32):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(state_size, fc1), nn.Linear(fc1, fc2), nn.Linear(fc2, action_size)

    def forward(self, state):
        x = F.relu(self.fc1(state))
        x = F.relu(self.fc2(x))
        return torch.tanh(self.fc3(x))


class Critic(nn.Module):
    def __init__(self, state_size, action_size, fcs1=32, fc2=32):
        super().__init__()
        self.fcs1 = nn.Linear(state_size, fcs1)
        self.fc2 = nn.Linear(fcs1 + action_size, fc2)
        self.fc3 = nn.Linear(fc2, 1)

    def forward(self, state, action):
        xs = F.relu(self.fcs1(state))
        x = F.relu(self.fc2(torch.cat((xs, action), dim=1)))
        return self.fc3(x)


class ReplayBuffer:
    def __init__(self, buffer_size, batch_size):
        self.memory = deque(maxlen=buffer_size)
        self.batch_size = batch_size

    def add(self, *args):
        self.memory.append(Experience(*args))

    def sample(self):
        exps = random.sample(self.memory, k=self.batch_size)
        states = torch.from_numpy(np.vstack([e.state for e in exps])).float()
        actions = torch.from_numpy(np.vstack([e.action for e in exps])).float()
        rewards = torch.from_numpy(np.vstack([e.reward for e in exps])).float()
        next_states = torch.from_numpy(np.vstack([e.next_state for e in exps])).float()
        dones = torch.from_numpy(np.vstack([e.done for e in exps]).astype(np.uint8)).float()
        return states, actions, rewards, next_states, dones

    def __len__(self):
        return len(self.memory)


class Agent:
    def __init__(self, state_size, action_size):
        self.actor_local, self.actor_target = Actor(state_size, action_size), Actor(state_size, action_size)
        self.critic_local, self.critic_target = Critic(state_size, action_size), Critic(state_size, action_size)
        self.actor_target.load_state_dict(self.actor_local.state_dict())
        self.critic_target.load_state_dict(self.critic_local.state_dict())
        self.actor_optimizer = torch.optim.Adam(self.actor_local.parameters(), lr=1e-4)
        self.critic_optimizer = torch.optim.Adam(self.critic_local.parameters(), lr=1e-3)
        self.memory = ReplayBuffer(BUFFER_SIZE, BATCH_SIZE)

    def act(self, state):
        with torch.no_grad():
            action = self.actor_local(torch.from_numpy(state).float().unsqueeze(0)).numpy()[0]
        return np.clip(action + 0.1 * np.random.randn(*action.shape), -1, 1)

    def step(self, state, action, reward, next_state, done):
        self.memory.add(state, action, reward, next_state, done)
        if len(self.memory) > BATCH_SIZE:
            return self.learn(self.memory.sample(), GAMMA)
        return None

    def learn(self, experiences, gamma):
        states, actions, rewards, next_states, dones = experiences
        with torch.no_grad():
            Q_targets_next = self.critic_target(next_states, self.actor_target(next_states))
            Q_targets = rewards + gamma * Q_targets_next * (1 - dones)
        Q_expected = self.critic_local(states, actions)
        critic_loss = F.mse_loss(Q_expected, Q_targets)
        actions_pred = self.actor_local(states)
        actor_loss = -self.critic_local(states, actions_pred).mean()  # expect: GG111

        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.critic_local.parameters(), 1)
        self.critic_optimizer.step()  # also: GG111

        self.actor_optimizer.zero_grad()
        actor_loss.backward()  # also: GG111
        self.actor_optimizer.step()

        self.soft_update(self.critic_local, self.critic_target, TAU)
        self.soft_update(self.actor_local, self.actor_target, TAU)
        return critic_loss.item(), actor_loss.item()

    @staticmethod
    def soft_update(local_model, target_model, tau):
        for t, l in zip(target_model.parameters(), local_model.parameters()):
            t.data.copy_(tau * l.data + (1.0 - tau) * t.data)


class FakeReacherEnv:
    def __init__(self, state_size=6, action_size=2):
        self.state_size, self.action_size = state_size, action_size

    def reset(self):
        return np.random.randn(self.state_size)

    def step(self, action):
        return np.random.randn(self.state_size), float(-np.abs(action).sum()), False


def main():
    env = FakeReacherEnv()
    agent = Agent(env.state_size, env.action_size)
    state = env.reset()
    for t in range(40):
        action = agent.act(state)
        next_state, reward, done = env.step(action)
        losses = agent.step(state, action, reward, next_state, done)
        state = next_state
        if losses is not None and t % 10 == 0:
            print(t, losses)


if __name__ == "__main__":
    main()
