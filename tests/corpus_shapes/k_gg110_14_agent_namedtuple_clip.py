# corpus: RL Agent class whose act() converts the policy's graph-carrying output with np.asarray while gradients are recorded; transitions kept as namedtuples
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad.
# source: docs/rules/GG110.md (shape: 1, 4)
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn

Transition = namedtuple("Transition", ["state", "action", "reward"])


class Agent:
    def __init__(self, policy, optimizer, noise=0.1):
        self.policy = policy
        self.optimizer = optimizer
        self.noise = noise
        self.memory = []

    def act(self, state):
        mean = self.policy(state)
        action = mean + self.noise * torch.randn_like(mean)
        return np.asarray(action).clip(-1.0, 1.0)  # expect: GG110

    def observe(self, state, action, reward):
        self.memory.append(Transition(state, torch.as_tensor(action, dtype=torch.float32), reward))

    def update(self):
        states = torch.cat([t.state for t in self.memory])
        actions = torch.cat([t.action for t in self.memory])
        rewards = torch.tensor([t.reward for t in self.memory])
        weights = torch.softmax(rewards, dim=0).unsqueeze(1)
        loss = (weights * (self.policy(states) - actions).pow(2)).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.memory.clear()

    def fit(self, episodes=2, horizon=4):
        for episode in range(episodes):
            for t in range(horizon):
                state = torch.randn(1, 3)
                action = self.act(state)
                reward = float(-np.square(action).sum())
                self.observe(state, action, reward)
            self.update()


def main():
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
    agent = Agent(policy, torch.optim.Adam(policy.parameters(), lr=1e-3))
    agent.fit()


if __name__ == "__main__":
    main()
