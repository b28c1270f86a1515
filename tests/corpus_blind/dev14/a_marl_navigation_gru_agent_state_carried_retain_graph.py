# corpus: Multi-agent adaptive navigation (FazelYU/Adaptive-Navigation shape): each vehicle agent keeps a GRU network state that is fed back every time step end to end; the carried state is never detached, the TD loss is backpropagated with retain_graph=True to silence the first error, and the optimizer step then makes the next backward through the retained old graph fail
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/FazelYU/Adaptive-Navigation/issues/41
import random
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Transition = namedtuple("Transition", ["obs", "action", "reward", "next_obs"])


class RecurrentQNet(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=24):
        super().__init__()
        self.encoder = nn.Linear(obs_dim, hidden)
        self.gru = nn.GRUCell(hidden, hidden)
        self.head = nn.Linear(hidden, n_actions)

    def forward(self, obs, state):
        x = F.relu(self.encoder(obs))
        state = self.gru(x, state)
        return self.head(state), state


class IntersectionAgent:
    def __init__(self, agent_id, obs_dim, n_actions, gamma=0.95):
        self.agent_id, self.n_actions, self.gamma = agent_id, n_actions, gamma
        self.net = RecurrentQNet(obs_dim, n_actions)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.state = torch.zeros(1, 24)

    def act(self, obs, eps=0.1):
        q, self.state = self.net(obs, self.state)  # expect: GG104
        if random.random() < eps:
            return random.randrange(self.n_actions), q
        return int(q.argmax(dim=1)), q

    def learn(self, q, transition):
        with torch.no_grad():
            next_q, _ = self.net(transition.next_obs, self.state)
            target = transition.reward + self.gamma * next_q.max(dim=1).values
        loss = F.smooth_l1_loss(q[0, transition.action].unsqueeze(0), target)
        self.optimizer.zero_grad()
        loss.backward(retain_graph=True)  # also: GG104
        self.optimizer.step()
        return loss.item()


class RoadNetwork:
    def __init__(self, n_agents, obs_dim):
        self.n_agents, self.obs_dim = n_agents, obs_dim

    def reset(self):
        return [torch.randn(1, self.obs_dim) for _ in range(self.n_agents)]

    def step(self, actions):
        next_obs = [torch.randn(1, self.obs_dim) for _ in range(self.n_agents)]
        rewards = [torch.tensor([-float(a)]) for a in actions]
        return next_obs, rewards


def run_episode(env, agents, steps=6):
    obs = env.reset()
    losses = {agent.agent_id: [] for agent in agents}
    for t in range(steps):
        decisions = [agent.act(o) for agent, o in zip(agents, obs)]
        actions = [a for a, _ in decisions]
        next_obs, rewards = env.step(actions)
        for agent, (a, q), o, r, no in zip(agents, decisions, obs, rewards, next_obs):
            losses[agent.agent_id].append(agent.learn(q, Transition(o, a, r, no)))
        obs = next_obs
    return {k: sum(v) / len(v) for k, v in losses.items()}


def main():
    random.seed(0)
    torch.manual_seed(0)
    env = RoadNetwork(n_agents=3, obs_dim=8)
    agents = [IntersectionAgent(i, obs_dim=8, n_actions=4) for i in range(3)]
    for episode in range(2):
        print("episode", episode, run_episode(env, agents))


if __name__ == "__main__":
    main()
