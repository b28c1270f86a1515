# corpus: prioritized replay memory updated with the per-sample loss tensor itself, so every priority (and segment-tree sum) keeps an autograd graph
# source: https://github.com/Kaixhin/Rainbow/pull/33
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class SegmentTree:
    def __init__(self, size):
        self.index = 0
        self.size = size
        self.full = False
        self.sum_tree = [0.0] * (2 * size - 1)
        self.data = [None] * size
        self.max = 1.0

    def _propagate(self, index):
        parent = (index - 1) // 2
        left, right = 2 * parent + 1, 2 * parent + 2
        self.sum_tree[parent] = self.sum_tree[left] + self.sum_tree[right]
        if parent != 0:
            self._propagate(parent)

    def update(self, index, value):
        self.sum_tree[index] = value
        self._propagate(index)
        self.max = max(float(value), self.max)

    def append(self, data, value):
        self.data[self.index] = data
        self.update(self.index + self.size - 1, value)
        self.index = (self.index + 1) % self.size
        self.full = self.full or self.index == 0

    def total(self):
        return self.sum_tree[0]


class ReplayMemory:
    def __init__(self, capacity, priority_exponent=0.5, priority_weight=0.4):
        self.capacity = capacity
        self.priority_exponent = priority_exponent
        self.priority_weight = priority_weight
        self.transitions = SegmentTree(capacity)

    def append(self, state, action, reward, next_state):
        self.transitions.append((state, action, reward, next_state), self.transitions.max)

    def sample(self, batch_size):
        n = self.capacity if self.transitions.full else self.transitions.index
        leaves = [float(self.transitions.sum_tree[i + self.capacity - 1]) for i in range(n)]
        idxs = random.choices(range(n), weights=leaves, k=batch_size)
        batch = [self.transitions.data[i] for i in idxs]
        states = torch.stack([b[0] for b in batch])
        actions = torch.tensor([b[1] for b in batch])
        rewards = torch.tensor([b[2] for b in batch])
        next_states = torch.stack([b[3] for b in batch])
        total = float(self.transitions.total())
        probs = torch.tensor([leaves[i] / total for i in idxs])
        weights = (n * probs) ** -self.priority_weight
        return idxs, states, actions, rewards, next_states, weights / weights.max()

    def update_priorities(self, idxs, priorities):
        for idx, priority in zip(idxs, priorities):
            self.transitions.update(idx + self.capacity - 1, priority ** self.priority_exponent)


class Agent:
    def __init__(self, obs_dim, n_actions, gamma=0.99):
        self.online_net = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.target_net = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.target_net.load_state_dict(self.online_net.state_dict())
        self.optimiser = torch.optim.Adam(self.online_net.parameters(), lr=1e-3)
        self.gamma = gamma

    def learn(self, mem, batch_size=8):
        idxs, states, actions, rewards, next_states, weights = mem.sample(batch_size)
        q = self.online_net(states).gather(1, actions.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target = rewards + self.gamma * self.target_net(next_states).max(1)[0]
        loss = F.smooth_l1_loss(q, target, reduction="none")
        self.online_net.zero_grad()
        (weights * loss).mean().backward()
        self.optimiser.step()
        mem.update_priorities(idxs, loss)  # expect: GG301


def main():
    torch.manual_seed(0)
    random.seed(0)
    mem = ReplayMemory(capacity=32)
    agent = Agent(obs_dim=4, n_actions=2)
    for t in range(40):
        s, s2 = torch.randn(4), torch.randn(4)
        mem.append(s, random.randrange(2), random.random(), s2)
        if t >= 8:
            agent.learn(mem)
    return mem, agent


if __name__ == "__main__":
    mem, agent = main()
    # ground truth: stored priorities and the tree's running sums hold autograd graphs from past losses
    assert isinstance(mem.transitions.total(), torch.Tensor) and mem.transitions.total().grad_fn is not None
    graph_leaves = [v for v in mem.transitions.sum_tree if isinstance(v, torch.Tensor) and v.grad_fn is not None]
    assert len(graph_leaves) > 10
