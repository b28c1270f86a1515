import numpy as np
import torch


class SimpleReplayBuffer:
    def __init__(self, max_size, obs_dim, action_dim):
        self._obs = np.zeros((max_size, obs_dim), dtype=np.float32)
        self._actions = np.zeros((max_size, action_dim), dtype=np.float32)
        self._rewards = np.zeros((max_size, 1), dtype=np.float32)
        self._next_obs = np.zeros((max_size, obs_dim), dtype=np.float32)
        self._terminals = np.zeros((max_size, 1), dtype=np.float32)
        self._max_size = max_size
        self._top = 0
        self._size = 0

    def add_sample(self, obs, action, reward, next_obs, terminal):
        i = self._top
        self._obs[i], self._actions[i] = obs, action
        self._rewards[i], self._next_obs[i], self._terminals[i] = reward, next_obs, terminal
        self._top = (self._top + 1) % self._max_size
        self._size = min(self._size + 1, self._max_size)

    def random_batch(self, batch_size, rng):
        idx = rng.integers(0, self._size, size=batch_size)
        return {
            "observations": torch.from_numpy(self._obs[idx]),
            "actions": torch.from_numpy(self._actions[idx]),
            "rewards": torch.from_numpy(self._rewards[idx]),
            "next_observations": torch.from_numpy(self._next_obs[idx]),
            "terminals": torch.from_numpy(self._terminals[idx]),
        }
