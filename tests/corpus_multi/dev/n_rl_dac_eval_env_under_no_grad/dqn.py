import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class QNetwork(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, hidden), nn.ReLU(), nn.Linear(hidden, action_dim))

    def forward(self, x):
        return self.net(x)


class DQN:
    def __init__(self, state_dim, action_dim, env, eval_env, gamma=0.99, seed=0):
        self._q = QNetwork(state_dim, action_dim)
        self._q_target = copy.deepcopy(self._q)
        self._optimizer = torch.optim.Adam(self._q.parameters(), lr=1e-3)
        self._gamma = gamma
        self._action_dim = action_dim
        self._env = env
        self._eval_env = eval_env
        self._replay = []
        self._rng = np.random.default_rng(seed)

    def get_action(self, s, epsilon):
        if self._rng.random() < epsilon:
            return int(self._rng.integers(self._action_dim))
        with torch.no_grad():
            return int(self._q(torch.as_tensor(s).unsqueeze(0)).argmax(dim=1).item())

    def _update(self, batch_size=8):
        idx = self._rng.integers(0, len(self._replay), batch_size)
        s, a, r, ns, d = (torch.as_tensor(np.array(x)) for x in zip(*[self._replay[i] for i in idx]))
        with torch.no_grad():
            target = r.float() + self._gamma * (1 - d.float()) * self._q_target(ns).max(dim=1).values
        q = self._q(s).gather(1, a.long().view(-1, 1)).squeeze(1)
        loss = F.smooth_l1_loss(q, target)
        self._optimizer.zero_grad()
        loss.backward()
        self._optimizer.step()

    def train(self, episodes, eval_every, eval_eps):
        eval_rewards = []
        for e in range(episodes):
            s, done = self._env.reset(), False
            while not done:
                a = self.get_action(s, epsilon=0.2)
                ns, r, done = self._env.step(a)
                self._replay.append((s, a, r, ns, done))
                self._update()
                s = ns
            if (e + 1) % eval_every == 0:
                eval_rewards.append(self.eval(eval_eps))  # also: GG106
        return eval_rewards

    def eval(self, episodes):
        rewards = []
        with torch.no_grad():  # expect: GG106
            for _ in range(episodes):
                s, done, ep_r = self._eval_env.reset(), False, 0.0  # also: GG106
                while not done:
                    s, r, done = self._eval_env.step(self.get_action(s, epsilon=0.0))  # also: GG106
                    ep_r += r
                rewards.append(ep_r)
        return float(np.mean(rewards))
