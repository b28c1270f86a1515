# corpus: stable-baselines3-style on-policy rollout collection: the policy is evaluated under torch.no_grad() and actions.cpu().numpy() is taken from that output for env.step and the rollout buffer, while the update re-evaluates the stored actions with gradients (correct)
# source: https://github.com/DLR-RM/stable-baselines3/issues/581
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


class FakeBoxEnv:
    def __init__(self, obs_dim=4, act_dim=2, horizon=16):
        self.obs_dim, self.act_dim, self.horizon, self.t = obs_dim, act_dim, horizon, 0
        self.low, self.high = -np.ones(act_dim), np.ones(act_dim)

    def reset(self):
        self.t = 0
        return np.random.randn(self.obs_dim).astype(np.float32)

    def step(self, action):
        self.t += 1
        reward = -float(np.square(action).sum())
        return np.random.randn(self.obs_dim).astype(np.float32), reward, self.t >= self.horizon


class ActorCriticPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, act_dim))
        self.vf = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.log_std = nn.Parameter(torch.zeros(act_dim))

    def distribution(self, obs):
        return torch.distributions.Normal(self.pi(obs), self.log_std.exp())

    def forward(self, obs):
        dist = self.distribution(obs)
        actions = dist.sample()
        return actions, self.vf(obs).squeeze(-1), dist.log_prob(actions).sum(-1)

    def evaluate_actions(self, obs, actions):
        dist = self.distribution(obs)
        return self.vf(obs).squeeze(-1), dist.log_prob(actions).sum(-1), dist.entropy().sum(-1)


@dataclass
class RolloutBuffer:
    observations: list
    actions: list
    rewards: list
    values: list
    log_probs: list

    @classmethod
    def empty(cls):
        return cls([], [], [], [], [])


class A2C:
    def __init__(self, env, n_steps=16, gamma=0.99):
        self.env, self.n_steps, self.gamma = env, n_steps, gamma
        self.policy = ActorCriticPolicy(env.obs_dim, env.act_dim)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=7e-4)
        self._last_obs = env.reset()

    def collect_rollouts(self):
        buf = RolloutBuffer.empty()
        for _ in range(self.n_steps):
            with torch.no_grad():
                obs_tensor = torch.as_tensor(self._last_obs).unsqueeze(0)
                actions, values, log_probs = self.policy(obs_tensor)
            actions = actions.cpu().numpy()
            clipped_actions = np.clip(actions, self.env.low, self.env.high)
            new_obs, reward, done = self.env.step(clipped_actions[0])
            buf.observations.append(self._last_obs)
            buf.actions.append(actions[0])
            buf.rewards.append(reward)
            buf.values.append(values.item())
            buf.log_probs.append(log_probs.item())
            self._last_obs = self.env.reset() if done else new_obs
        return buf

    def train(self, buf):
        returns, running = [], 0.0
        for r in reversed(buf.rewards):
            running = r + self.gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns, dtype=torch.float32)
        advantages = returns - torch.tensor(buf.values)
        obs = torch.as_tensor(np.array(buf.observations))
        actions = torch.as_tensor(np.array(buf.actions))
        values, log_prob, entropy = self.policy.evaluate_actions(obs, actions)
        policy_loss = -(advantages * log_prob).mean()
        value_loss = nn.functional.mse_loss(returns, values)
        loss = policy_loss + 0.5 * value_loss - 0.01 * entropy.mean()
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.policy.parameters(), 0.5)
        self.optimizer.step()
        return {"policy_loss": policy_loss.item(), "value_loss": value_loss.item()}

    def learn(self, iterations=3):
        for it in range(iterations):
            print(it, self.train(self.collect_rollouts()))


def main():
    A2C(FakeBoxEnv()).learn()


if __name__ == "__main__":
    main()
