import numpy as np
import torch


class Memory:
    def __init__(self, capacity, state_dim, action_dim, seed=0):
        self.states = np.zeros((capacity, state_dim), np.float32)
        self.actions = np.zeros((capacity, action_dim), np.float32)
        self.rewards = np.zeros((capacity, 1), np.float32)
        self.next_states = np.zeros((capacity, state_dim), np.float32)
        self.dones = np.zeros((capacity, 1), np.float32)
        self.capacity, self.n, self.p = capacity, 0, 0
        self.rng = np.random.default_rng(seed)

    def append(self, state, action, reward, next_state, done):
        self.states[self.p], self.actions[self.p], self.rewards[self.p] = state, action, reward
        self.next_states[self.p], self.dones[self.p] = next_state, done
        self.p = (self.p + 1) % self.capacity
        self.n = min(self.n + 1, self.capacity)

    def sample(self, batch_size):
        idx = self.rng.integers(0, self.n, batch_size)
        return tuple(torch.from_numpy(a[idx]) for a in
                     (self.states, self.actions, self.rewards, self.next_states, self.dones))
