import numpy as np


class ReplayMemory:
    def __init__(self, max_size, obs_dim, act_dim, seed=0):
        self.obs = np.zeros((max_size, obs_dim), np.float32)
        self.action = np.zeros((max_size, act_dim), np.float32)
        self.reward = np.zeros((max_size, 1), np.float32)
        self.next_obs = np.zeros((max_size, obs_dim), np.float32)
        self.terminal = np.zeros((max_size, 1), np.float32)
        self.max_size, self._curr_size, self._curr_pos = max_size, 0, 0
        self.rng = np.random.default_rng(seed)

    def append(self, obs, act, reward, next_obs, terminal):
        i = self._curr_pos
        self.obs[i], self.action[i], self.reward[i] = obs, act, reward
        self.next_obs[i], self.terminal[i] = next_obs, terminal
        self._curr_pos = (self._curr_pos + 1) % self.max_size
        self._curr_size = min(self._curr_size + 1, self.max_size)

    def sample_batch(self, batch_size):
        idx = self.rng.integers(0, self._curr_size, size=batch_size)
        return self.obs[idx], self.action[idx], self.reward[idx], self.next_obs[idx], self.terminal[idx]

    def size(self):
        return self._curr_size
