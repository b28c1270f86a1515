# corpus: DDPG portfolio-allocation agent (PyTorch-DDPG-Stock-Trading shape): DDPG.act() turns the actor network's allocation into a numpy array for the trading environment without detaching it (nor using .data or no_grad), so numpy() is called on a tensor that requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/JoshuaWu1997/PyTorch-DDPG-Stock-Trading/issues/1
from collections import deque
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorNetwork(nn.Module):
    def __init__(self, state_dim, n_stocks):
        super().__init__()
        self.fc1 = nn.Linear(state_dim, 64)
        self.fc2 = nn.Linear(64, n_stocks)

    def actor_action(self, state):
        return F.softmax(self.fc2(F.relu(self.fc1(state))), dim=-1)


class CriticNetwork(nn.Module):
    def __init__(self, state_dim, n_stocks):
        super().__init__()
        self.fc1 = nn.Linear(state_dim + n_stocks, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, state, action):
        return self.fc2(F.relu(self.fc1(torch.cat([state, action], dim=-1))))


class OUNoise:
    def __init__(self, n, mu=0.0, theta=0.15, sigma=0.05):
        self.n, self.mu, self.theta, self.sigma = n, mu, theta, sigma
        self.state = np.ones(n) * mu

    def noise(self):
        self.state += self.theta * (self.mu - self.state) + self.sigma * np.random.randn(self.n)
        return self.state


class StockEnv:
    def __init__(self, n_stocks, window=5):
        self.n, self.window = n_stocks, window

    def reset(self):
        self.prices = np.abs(np.random.randn(self.window, self.n)) + 1.0
        return self.prices.flatten().astype(np.float32)

    def step(self, allocation):
        rel = 1.0 + 0.01 * np.random.randn(self.n)
        reward = float(np.log(np.dot(allocation, rel)))
        self.prices = np.vstack([self.prices[1:], self.prices[-1] * rel])
        return self.prices.flatten().astype(np.float32), reward


class DDPG:
    def __init__(self, state_dim, n_stocks):
        self.actor_network = ActorNetwork(state_dim, n_stocks)
        self.critic_network = CriticNetwork(state_dim, n_stocks)
        self.actor_opt = torch.optim.Adam(self.actor_network.parameters(), lr=1e-4)
        self.critic_opt = torch.optim.Adam(self.critic_network.parameters(), lr=1e-3)
        self.noise = OUNoise(n_stocks)
        self.replay = deque(maxlen=1000)

    def act(self, next_state_data):
        state = torch.from_numpy(next_state_data).unsqueeze(0)
        allocation = self.actor_network.actor_action(state).view(-1)
        allocation = allocation.numpy() + self.noise.noise()  # expect: GG110
        allocation = np.clip(allocation, 1e-3, None)
        return allocation / allocation.sum()

    def train(self, batch_size=8, gamma=0.99):
        if len(self.replay) < batch_size:
            return None
        s, a, r, s2 = map(np.array, zip(*random.sample(self.replay, batch_size)))
        s, a, s2 = torch.tensor(s), torch.tensor(a, dtype=torch.float32), torch.tensor(s2)
        r = torch.tensor(r, dtype=torch.float32).unsqueeze(1)
        with torch.no_grad():
            y = r + gamma * self.critic_network(s2, self.actor_network.actor_action(s2))
        critic_loss = F.mse_loss(self.critic_network(s, a), y)
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        actor_loss = -self.critic_network(s, self.actor_network.actor_action(s)).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        return critic_loss.item(), actor_loss.item()


def main():
    np.random.seed(0)
    random.seed(0)
    torch.manual_seed(0)
    env = StockEnv(n_stocks=4)
    agent = DDPG(state_dim=20, n_stocks=4)
    for episode in range(2):
        state, total = env.reset(), 0.0
        for t in range(20):
            allocation = agent.act(state)
            next_state, reward = env.step(allocation)
            agent.replay.append((state, allocation, reward, next_state))
            agent.train()
            state, total = next_state, total + reward
        print(f"episode {episode} log return {total:.4f}")


if __name__ == "__main__":
    main()
