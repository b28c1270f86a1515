import copy

import numpy as np
import torch
import torch.nn.functional as F


class DQN:
    def __init__(self, q_function, optimizer, gamma=0.99, explorer_sigma=0.1, seed=0):
        self.model = q_function
        self.target_model = copy.deepcopy(q_function)
        self.optimizer = optimizer
        self.gamma = gamma
        self.sigma = explorer_sigma
        self.rng = np.random.default_rng(seed)

    def _evaluate_model(self, batch_obs):
        return self.model(torch.as_tensor(batch_obs, dtype=torch.float32))

    def batch_act(self, batch_obs):
        with torch.no_grad():
            batch_av = self._evaluate_model(batch_obs)
        batch_argmax = batch_av.greedy_actions.cpu().numpy()  # expect: GG110
        noise = self.sigma * self.rng.standard_normal(batch_argmax.shape)
        return np.clip(batch_argmax + noise, -1.0, 1.0).astype(np.float32)

    def update(self, batch):
        obs, actions, rewards, next_obs, dones = batch
        q = self.model(obs).evaluate_actions(actions)
        with torch.no_grad():
            next_v = self.target_model(next_obs).max
            target = rewards + self.gamma * (1.0 - dones) * next_v
        loss = F.mse_loss(q, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()
