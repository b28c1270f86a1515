# corpus: prioritized-replay DQN agent weights the per-sample MSE (reduction='none') by the importance-sampling weights as suggested in the thread, but forgets to reduce it, so backward() is called on a [batch] vector.
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/rlcode/per/issues/3
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class SumTree:
    write = 0

    def __init__(self, capacity):
        self.capacity = capacity
        self.tree = np.zeros(2 * capacity - 1)
        self.data = np.zeros(capacity, dtype=object)
        self.n_entries = 0

    def _propagate(self, idx, change):
        parent = (idx - 1) // 2
        self.tree[parent] += change
        if parent != 0:
            self._propagate(parent, change)

    def _retrieve(self, idx, s):
        left = 2 * idx + 1
        if left >= len(self.tree):
            return idx
        if s <= self.tree[left]:
            return self._retrieve(left, s)
        return self._retrieve(left + 1, s - self.tree[left])

    def total(self):
        return self.tree[0]

    def add(self, p, data):
        idx = self.write + self.capacity - 1
        self.data[self.write] = data
        self.update(idx, p)
        self.write = (self.write + 1) % self.capacity
        self.n_entries = min(self.n_entries + 1, self.capacity)

    def update(self, idx, p):
        change = p - self.tree[idx]
        self.tree[idx] = p
        self._propagate(idx, change)

    def get(self, s):
        idx = self._retrieve(0, s)
        return idx, self.tree[idx], self.data[idx - self.capacity + 1]


class Memory:
    e, a, beta, beta_increment_per_sampling = 0.01, 0.6, 0.4, 0.001

    def __init__(self, capacity):
        self.tree = SumTree(capacity)

    def _get_priority(self, error):
        return (np.abs(error) + self.e) ** self.a

    def add(self, error, sample):
        self.tree.add(self._get_priority(error), sample)

    def sample(self, n):
        batch, idxs, priorities = [], [], []
        segment = self.tree.total() / n
        self.beta = np.min([1., self.beta + self.beta_increment_per_sampling])
        for i in range(n):
            s = random.uniform(segment * i, segment * (i + 1))
            idx, p, data = self.tree.get(s)
            priorities.append(p)
            batch.append(data)
            idxs.append(idx)
        sampling_probabilities = np.array(priorities) / self.tree.total()
        is_weight = np.power(self.tree.n_entries * sampling_probabilities, -self.beta)
        is_weight /= is_weight.max()
        return batch, idxs, is_weight

    def update(self, idx, error):
        self.tree.update(idx, self._get_priority(error))


class DQN(nn.Module):
    def __init__(self, state_size, action_size):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(state_size, 24), nn.ReLU(),
                                nn.Linear(24, 24), nn.ReLU(), nn.Linear(24, action_size))

    def forward(self, x):
        return self.fc(x)


class DQNAgent:
    def __init__(self, state_size, action_size):
        self.state_size, self.action_size = state_size, action_size
        self.discount_factor = 0.99
        self.batch_size = 8
        self.train_start = 16
        self.memory = Memory(64)
        self.model = DQN(state_size, action_size)
        self.target_model = DQN(state_size, action_size)
        self.optimizer = optim.Adam(self.model.parameters(), lr=0.001)
        self.target_model.load_state_dict(self.model.state_dict())

    def append_sample(self, state, action, reward, next_state, done):
        target = self.model(torch.FloatTensor(state)).data
        old_val = target[0][action].item()
        target_val = self.target_model(torch.FloatTensor(next_state)).data
        new_val = reward if done else reward + self.discount_factor * torch.max(target_val).item()
        self.memory.add(abs(old_val - new_val), (state, action, reward, next_state, done))

    def train_model(self):
        mini_batch, idxs, is_weights = self.memory.sample(self.batch_size)
        states = torch.FloatTensor(np.vstack([m[0] for m in mini_batch]))
        actions = torch.LongTensor([m[1] for m in mini_batch]).view(-1, 1)
        rewards = torch.FloatTensor([m[2] for m in mini_batch])
        next_states = torch.FloatTensor(np.vstack([m[3] for m in mini_batch]))
        dones = torch.FloatTensor([float(m[4]) for m in mini_batch])

        pred = self.model(states)
        one_hot_action = torch.FloatTensor(self.batch_size, self.action_size).zero_()
        one_hot_action.scatter_(1, actions, 1)
        pred = torch.sum(pred.mul(one_hot_action), dim=1)

        next_pred = self.target_model(next_states).data
        target = rewards + (1 - dones) * self.discount_factor * next_pred.max(1)[0]

        errors = torch.abs(pred - target).data.numpy()
        for i in range(self.batch_size):
            self.memory.update(idxs[i], errors[i])

        self.optimizer.zero_grad()
        loss = torch.FloatTensor(is_weights) * F.mse_loss(pred, target, reduction='none')  # also: GG109
        loss.backward()  # expect: GG109
        self.optimizer.step()


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    state_size, action_size = 4, 2
    agent = DQNAgent(state_size, action_size)
    for e in range(3):
        state = np.random.randn(1, state_size)
        for t in range(20):
            action = random.randrange(action_size)
            next_state = np.random.randn(1, state_size)
            done = t == 19
            agent.append_sample(state, action, 1.0, next_state, done)
            if agent.memory.tree.n_entries >= agent.train_start:
                agent.train_model()
            state = next_state
        agent.target_model.load_state_dict(agent.model.state_dict())
        print("episode", e, "memory", agent.memory.tree.n_entries)


if __name__ == "__main__":
    main()
