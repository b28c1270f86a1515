# corpus: on-policy collector converts the Gaussian policy's action to numpy for the env step while the action still carries the policy graph
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/yamatokataoka/reinforcement-learning-replications/pull/101
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Normal


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.mu_net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, act_dim))
        self.log_std = nn.Parameter(-0.5 * torch.ones(act_dim))

    def distribution(self, obs):
        return Normal(self.mu_net(obs), self.log_std.exp())

    def get_action(self, obs, deterministic=False):
        dist = self.distribution(obs)
        return dist.mean if deterministic else dist.rsample()


class ToyContinuousEnv:
    def __init__(self, obs_dim=3, seed=0):
        self.rng = np.random.default_rng(seed)
        self.obs_dim = obs_dim

    def reset(self):
        return self.rng.standard_normal(self.obs_dim).astype(np.float32)

    def step(self, action):
        action = np.clip(action, -1.0, 1.0)
        obs = self.rng.standard_normal(self.obs_dim).astype(np.float32)
        return obs, -float(np.sum(action ** 2)), False


class RolloutBuffer:
    def __init__(self):
        self.observations, self.actions, self.rewards = [], [], []

    def add(self, obs, action, reward):
        self.observations.append(obs)
        self.actions.append(action)
        self.rewards.append(reward)


class OnPolicyAlgorithm:
    def __init__(self, env, policy, steps_per_epoch=8):
        self.env = env
        self.policy = policy
        self.steps_per_epoch = steps_per_epoch
        self.buffer = RolloutBuffer()

    def collect_one_epoch_experience(self):
        obs = self.env.reset()
        for _ in range(self.steps_per_epoch):
            obs_tensor = torch.from_numpy(obs)
            action = self.policy.get_action(obs_tensor).numpy()  # expect: GG110
            next_obs, reward, _ = self.env.step(action)
            self.buffer.add(obs, action, reward)
            obs = next_obs


if __name__ == "__main__":
    torch.manual_seed(0)
    algo = OnPolicyAlgorithm(ToyContinuousEnv(), GaussianPolicy(3, 2))
    algo.collect_one_epoch_experience()
