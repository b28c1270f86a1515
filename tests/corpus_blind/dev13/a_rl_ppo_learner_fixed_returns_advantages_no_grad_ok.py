# corpus: PPO learner (deep_rl_zoo shape) after the fix: returns and GAE advantages are pre-computed once per unroll batch under torch.no_grad() before the K update epochs and reused unchanged by every epoch, while log-probs, values and entropy are recomputed inside each minibatch step; correct
# source: https://github.com/michaelnny/deep_rl_zoo/issues/5
from typing import NamedTuple

import numpy as np
import torch
import torch.nn as nn


class Transition(NamedTuple):
    s_t: np.ndarray
    a_t: int
    logprob_a_t: float
    r_t: float
    done: bool


class ActorCriticMlpNet(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(state_dim, hidden), nn.ReLU())
        self.policy_head = nn.Linear(hidden, action_dim)
        self.baseline_head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.policy_head(h), self.baseline_head(h).squeeze(-1)


class PPOLearner:
    def __init__(self, network, discount=0.99, gae_lambda=0.95, clip_epsilon=0.2, update_k=4, batch_size=8):
        self.network = network
        self.optimizer = torch.optim.Adam(network.parameters(), lr=3e-4)
        self.discount, self.gae_lambda, self.clip_epsilon = discount, gae_lambda, clip_epsilon
        self.update_k, self.batch_size = update_k, batch_size

    def _compute_returns_and_advantages(self, s_t, r_t, done):
        with torch.no_grad():
            _, v_t = self.network(s_t)
            advantages, gae = torch.zeros_like(r_t), 0.0
            for t in reversed(range(len(r_t))):
                next_v = 0.0 if (t == len(r_t) - 1 or done[t]) else v_t[t + 1]
                delta = r_t[t] + self.discount * next_v - v_t[t]
                gae = delta + self.discount * self.gae_lambda * (1.0 - done[t]) * gae
                advantages[t] = gae
            returns = advantages + v_t
        return returns, advantages

    def update(self, transitions):
        s_t = torch.tensor(np.stack([tr.s_t for tr in transitions]), dtype=torch.float32)
        a_t = torch.tensor([tr.a_t for tr in transitions])
        behavior_logprob = torch.tensor([tr.logprob_a_t for tr in transitions])
        r_t = torch.tensor([tr.r_t for tr in transitions])
        done = torch.tensor([float(tr.done) for tr in transitions])
        returns, advantages = self._compute_returns_and_advantages(s_t, r_t, done)
        for _ in range(self.update_k):
            for idx in torch.randperm(len(transitions)).split(self.batch_size):
                logits, values = self.network(s_t[idx])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = torch.exp(dist.log_prob(a_t[idx]) - behavior_logprob[idx])
                adv = (advantages[idx] - advantages[idx].mean()) / (advantages[idx].std() + 1e-8)
                pg = torch.min(ratio * adv, torch.clamp(ratio, 1 - self.clip_epsilon, 1 + self.clip_epsilon) * adv)
                loss = -pg.mean() + 0.5 * (returns[idx] - values).pow(2).mean() - 0.01 * dist.entropy().mean()
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.network.parameters(), 0.5)
                self.optimizer.step()
        return loss.item()


def collect(network, n=32):
    transitions, s = [], np.random.randn(4).astype(np.float32)
    for t in range(n):
        with torch.no_grad():
            logits, _ = network(torch.from_numpy(s))
            dist = torch.distributions.Categorical(logits=logits)
            a = dist.sample()
        r = float(a.item() == int(s[0] > 0))
        transitions.append(Transition(s, a.item(), dist.log_prob(a).item(), r, t % 16 == 15))
        s = (0.9 * s + 0.1 * np.random.randn(4)).astype(np.float32)
    return transitions


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    learner = PPOLearner(ActorCriticMlpNet(4, 2))
    for it in range(3):
        print("iteration", it, "loss", round(learner.update(collect(learner.network)), 4))


if __name__ == "__main__":
    main()
