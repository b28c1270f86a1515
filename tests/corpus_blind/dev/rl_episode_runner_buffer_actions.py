# corpus: multi-agent EpisodeRunner stores graph-carrying actions from the controller into the replay buffer; every stored episode keeps its action graph alive
# source: https://github.com/oxwhirl/pymarl/pull/73
import random

import torch
import torch.nn as nn


class BasicMAC(nn.Module):
    """Multi-agent controller: one shared deterministic policy for all agents."""

    def __init__(self, obs_dim, n_agents, action_dim):
        super().__init__()
        self.n_agents = n_agents
        self.agent = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, action_dim))

    def select_actions(self, obs, noise_scale=0.1):
        actions = torch.tanh(self.agent(obs))
        return actions + noise_scale * torch.randn_like(actions)


class EpisodeBatch:
    def __init__(self, episode_limit):
        self.data = {"obs": [None] * episode_limit, "actions": [None] * episode_limit,
                     "reward": [None] * episode_limit}

    def update(self, fields, ts):
        for k, v in fields.items():
            self.data[k][ts] = v

    def __getitem__(self, k):
        return torch.stack(self.data[k])


class ReplayBuffer:
    def __init__(self, capacity):
        self.capacity = capacity
        self.episodes = []

    def insert_episode_batch(self, batch):
        self.episodes.append(batch)
        if len(self.episodes) > self.capacity:
            self.episodes.pop(0)

    def sample(self, n):
        return random.sample(self.episodes, n)


class EpisodeRunner:
    def __init__(self, mac, n_agents, obs_dim, episode_limit=6):
        self.mac = mac
        self.n_agents = n_agents
        self.obs_dim = obs_dim
        self.episode_limit = episode_limit

    def run(self):
        batch = EpisodeBatch(self.episode_limit)
        for t in range(self.episode_limit):
            obs = torch.randn(self.n_agents, self.obs_dim)
            actions = self.mac.select_actions(obs)  # also: GG301
            reward = -actions.pow(2).sum().item()
            batch.update({"obs": obs, "actions": actions, "reward": torch.tensor(reward)}, ts=t)  # expect: GG301
        return batch


class CriticLearner:
    def __init__(self, n_agents, obs_dim, action_dim):
        self.critic = nn.Sequential(nn.Linear(n_agents * (obs_dim + action_dim), 32), nn.ReLU(), nn.Linear(32, 1))
        self.optimiser = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def train(self, episodes):
        loss = 0.0
        for ep in episodes:
            obs, actions, reward = ep["obs"], ep["actions"].detach(), ep["reward"]
            inp = torch.cat([obs, actions], dim=-1).flatten(1)
            loss = loss + (self.critic(inp).squeeze(-1) - reward).pow(2).mean()
        self.optimiser.zero_grad()
        loss.backward()
        self.optimiser.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    random.seed(0)
    n_agents, obs_dim, action_dim = 3, 5, 2
    mac = BasicMAC(obs_dim, n_agents, action_dim)
    runner = EpisodeRunner(mac, n_agents, obs_dim)
    buffer = ReplayBuffer(capacity=50)
    learner = CriticLearner(n_agents, obs_dim, action_dim)
    for episode in range(8):
        buffer.insert_episode_batch(runner.run())
        if len(buffer.episodes) >= 4:
            learner.train(buffer.sample(4))
    return buffer, learner


if __name__ == "__main__":
    buffer, learner = main()
    # ground truth: every stored action still references the controller's autograd graph
    assert all(a.grad_fn is not None for ep in buffer.episodes for a in ep.data["actions"])
    # ground truth: the critic itself trains fine, the leak is silent
    assert all(p.grad is not None for p in learner.critic.parameters())
