# corpus: tianshou-style vanilla policy gradient where the collector stores the action log-probabilities in the replay buffer under no_grad and learn() reuses those stored values instead of recomputing them, so the REINFORCE loss has no graph back to the policy
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/thu-ml/tianshou/issues/397
from dataclasses import dataclass, field
from typing import List

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


class PolicyNet(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, n_actions))

    def forward(self, obs):
        return torch.distributions.Categorical(logits=self.net(obs))


@dataclass
class ReplayBuffer:
    obs: List[np.ndarray] = field(default_factory=list)
    act: List[int] = field(default_factory=list)
    rew: List[float] = field(default_factory=list)
    done: List[bool] = field(default_factory=list)
    logp: List[torch.Tensor] = field(default_factory=list)

    def add(self, obs, act, rew, done, logp):
        self.obs.append(obs)
        self.act.append(act)
        self.rew.append(rew)
        self.done.append(done)
        self.logp.append(logp)

    def reset(self):
        self.__init__()


class FakeCartPole:
    def __init__(self, obs_dim=4, horizon=12):
        self.obs_dim, self.horizon, self.t = obs_dim, horizon, 0

    def reset(self):
        self.t = 0
        return np.random.randn(self.obs_dim).astype(np.float32)

    def step(self, action):
        self.t += 1
        return np.random.randn(self.obs_dim).astype(np.float32), 1.0, self.t >= self.horizon


class Collector:
    def __init__(self, policy, env, buffer):
        self.policy, self.env, self.buffer = policy, env, buffer

    def collect(self, n_episode=2):
        for _ in range(n_episode):
            obs, done = self.env.reset(), False
            while not done:
                with torch.no_grad():
                    dist = self.policy.model(torch.as_tensor(obs).unsqueeze(0))
                    act = dist.sample()
                    logp = dist.log_prob(act)
                next_obs, rew, done = self.env.step(act.item())
                self.buffer.add(obs, act.item(), rew, done, logp)
                obs = next_obs


class PGPolicy:
    def __init__(self, model, optim, gamma=0.99):
        self.model, self.optim, self.gamma = model, optim, gamma

    def compute_returns(self, buffer):
        returns, running = [], 0.0
        for rew, done in zip(reversed(buffer.rew), reversed(buffer.done)):
            running = rew + self.gamma * running * (1.0 - float(done))
            returns.insert(0, running)
        returns = torch.tensor(returns, dtype=torch.float32)
        return (returns - returns.mean()) / (returns.std() + 1e-8)

    def learn(self, buffer):
        returns = self.compute_returns(buffer)
        log_prob = torch.cat(buffer.logp)
        loss = -(log_prob * returns).mean()  # expect: GG106
        self.optim.zero_grad()
        loss.backward()  # also: GG106
        self.optim.step()
        return {"loss": loss.item()}


def main():
    model = PolicyNet(4, 2)
    policy = PGPolicy(model, torch.optim.Adam(model.parameters(), lr=1e-3))
    buffer = ReplayBuffer()
    collector = Collector(policy, FakeCartPole(), buffer)
    for epoch in range(3):
        collector.collect(n_episode=2)
        print(epoch, policy.learn(buffer))
        buffer.reset()


if __name__ == "__main__":
    main()
