# corpus: one-step A2C agent with a shared actor-critic net updates the value head (optimizer.step) before backpropagating the policy loss through the same forward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/MrSyee/pg-is-all-you-need/pull/3
from typing import Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal


class ActorCritic(nn.Module):
    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        self.feature = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.mu_layer = nn.Linear(64, out_dim)
        self.log_std_layer = nn.Linear(64, out_dim)
        self.value_layer = nn.Linear(64, 1)

    def forward(self, state: torch.Tensor):
        x = self.feature(state)
        mu = torch.tanh(self.mu_layer(x)) * 2
        std = F.softplus(self.log_std_layer(x)) + 1e-3
        dist = Normal(mu, std)
        return dist, self.value_layer(x)


class PendulumLike:
    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        return self.rng.standard_normal(3).astype(np.float32)

    def step(self, action):
        next_state = self.rng.standard_normal(3).astype(np.float32)
        reward = -float(np.square(action).sum())
        return next_state, reward, False


class A2CAgent:
    def __init__(self, env, gamma=0.9, entropy_weight=1e-2):
        self.env = env
        self.gamma = gamma
        self.entropy_weight = entropy_weight
        self.net = ActorCritic(3, 1)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.transition = []

    def select_action(self, state: np.ndarray) -> np.ndarray:
        state_t = torch.FloatTensor(state)
        dist, value = self.net(state_t)
        action = dist.sample()
        log_prob = dist.log_prob(action).sum(dim=-1)
        self.transition = [state_t, log_prob, value]
        return action.numpy()

    def step(self, action: np.ndarray) -> Tuple[np.ndarray, float, bool]:
        next_state, reward, done = self.env.step(action)
        self.transition.extend([next_state, reward, done])
        return next_state, reward, done

    def update_model(self) -> Tuple[float, float]:
        state, log_prob, pred_value, next_state, reward, done = self.transition
        mask = 1 - done
        with torch.no_grad():
            _, next_value = self.net(torch.FloatTensor(next_state))
        targ_value = reward + self.gamma * next_value * mask
        value_loss = F.smooth_l1_loss(pred_value, targ_value)

        self.optimizer.zero_grad()
        value_loss.backward(retain_graph=True)  # also: GG111
        self.optimizer.step()  # expect: GG111

        advantage = (targ_value - pred_value).detach()
        policy_loss = -advantage * log_prob
        policy_loss = policy_loss + self.entropy_weight * -log_prob
        policy_loss.backward()  # also: GG111
        self.optimizer.step()
        return policy_loss.item(), value_loss.item()

    def train(self, num_frames: int):
        state = self.env.reset()
        for _ in range(num_frames):
            action = self.select_action(state)
            next_state, reward, done = self.step(action)
            self.update_model()
            state = next_state


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = A2CAgent(PendulumLike())
    agent.train(num_frames=3)
