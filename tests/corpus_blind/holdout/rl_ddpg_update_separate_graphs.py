# corpus: DDPG agent: target computed under no_grad, critic updated first, then a fresh actor forward builds the actor loss; soft target updates under no_grad; actions for the env via .detach().numpy()
# source: https://github.com/JoshuaWu1997/PyTorch-DDPG-Stock-Trading/issues/2
import random
from collections import deque

import numpy as np
import torch
import torch.nn as nn


class ActorNetwork(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, 32), nn.ReLU(), nn.Linear(32, action_dim), nn.Softmax(dim=-1))

    def actor_action(self, state):
        return self.net(state)


class CriticNetwork(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim + action_dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def critic(self, action, state):
        return self.net(torch.cat([state, action], dim=-1))


class DDPG:
    def __init__(self, state_dim, action_dim, gamma=0.99, tau=0.01, batch_size=16):
        self.actor_network = ActorNetwork(state_dim, action_dim)
        self.critic_network = CriticNetwork(state_dim, action_dim)
        self.target_actor = ActorNetwork(state_dim, action_dim)
        self.target_critic = CriticNetwork(state_dim, action_dim)
        self.target_actor.load_state_dict(self.actor_network.state_dict())
        self.target_critic.load_state_dict(self.critic_network.state_dict())
        self.actor_optim = torch.optim.Adam(self.actor_network.parameters(), lr=1e-4)
        self.critic_optim = torch.optim.Adam(self.critic_network.parameters(), lr=1e-3)
        self.replay_buffer = deque(maxlen=1000)
        self.gamma, self.tau, self.batch_size = gamma, tau, batch_size

    def action(self, state):
        state = torch.from_numpy(state).float().unsqueeze(0)
        a = self.actor_network.actor_action(state).detach().numpy()[0]
        return a + 0.05 * np.random.randn(*a.shape)

    def perceive(self, state, action, reward, next_state):
        self.replay_buffer.append((state, action, reward, next_state))
        if len(self.replay_buffer) >= self.batch_size:
            self.train_on_batch()

    def soft_update(self, target, source):
        with torch.no_grad():
            for tp, p in zip(target.parameters(), source.parameters()):
                tp.mul_(1 - self.tau).add_(self.tau * p)

    def train_on_batch(self):
        batch = random.sample(self.replay_buffer, self.batch_size)
        state_batch = torch.tensor(np.array([b[0] for b in batch]), dtype=torch.float32)
        action_batch = torch.tensor(np.array([b[1] for b in batch]), dtype=torch.float32)
        reward_batch = torch.tensor([b[2] for b in batch], dtype=torch.float32).unsqueeze(1)
        next_state_batch = torch.tensor(np.array([b[3] for b in batch]), dtype=torch.float32)

        with torch.no_grad():
            next_action = self.target_actor.actor_action(next_state_batch)
            y_batch = reward_batch + self.gamma * self.target_critic.critic(next_action, next_state_batch)

        # for critic
        q = self.critic_network.critic(action_batch, state_batch)
        critic_loss = nn.functional.mse_loss(q, y_batch)
        self.critic_optim.zero_grad()
        critic_loss.backward()
        self.critic_optim.step()

        # for actor
        actor_loss = -self.critic_network.critic(self.actor_network.actor_action(state_batch), state_batch).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()

        self.soft_update(self.target_actor, self.actor_network)
        self.soft_update(self.target_critic, self.critic_network)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    agent = DDPG(state_dim=6, action_dim=3)
    state = np.random.randn(6)
    for t in range(24):
        action = agent.action(state)
        next_state = np.random.randn(6)
        reward = float(action[0])
        agent.perceive(state, action, reward, next_state)
        state = next_state
    return agent


if __name__ == "__main__":
    agent = main()
    assert all(p.grad is not None for p in agent.actor_network.parameters())
    assert all(p.grad is not None for p in agent.critic_network.parameters())
    assert all(p.grad is None for p in agent.target_actor.parameters())
    assert all(p.grad is None for p in agent.target_critic.parameters())
