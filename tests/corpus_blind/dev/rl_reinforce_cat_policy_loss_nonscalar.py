# corpus: REINFORCE with per-step returns G_t; the per-step losses are concatenated but never summed before backward
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/udacity/deep-reinforcement-learning/issues/42
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, s_size=4, h_size=16, a_size=2):
        super().__init__()
        self.fc1 = nn.Linear(s_size, h_size)
        self.fc2 = nn.Linear(h_size, a_size)

    def forward(self, x):
        return F.softmax(self.fc2(F.relu(self.fc1(x))), dim=1)

    def act(self, state):
        state = torch.from_numpy(state).float().unsqueeze(0)
        probs = self.forward(state)
        m = Categorical(probs)
        action = m.sample()
        return action.item(), m.log_prob(action)


class CartPoleLike:
    def __init__(self, rng, max_t=12):
        self.rng = rng
        self.max_t = max_t

    def reset(self):
        self.t = 0
        return self.rng.standard_normal(4)

    def step(self, action):
        self.t += 1
        return self.rng.standard_normal(4), 1.0, self.t >= self.max_t, {}


def reinforce(policy, optimizer, env, n_episodes=3, max_t=100, gamma=1.0):
    scores_deque = deque(maxlen=100)
    for i_episode in range(1, n_episodes + 1):
        saved_log_probs = []
        rewards = []
        state = env.reset()
        for t in range(max_t):
            action, log_prob = policy.act(state)
            saved_log_probs.append(log_prob)
            state, reward, done, _ = env.step(action)
            rewards.append(reward)
            if done:
                break
        scores_deque.append(sum(rewards))

        discounted_rewards = []
        for t in range(len(rewards)):
            Gt = 0.0
            pw = 0
            for r in rewards[t:]:
                Gt = Gt + gamma ** pw * r
                pw += 1
            discounted_rewards.append(Gt)

        policy_loss = []
        for log_prob, Gt in zip(saved_log_probs, discounted_rewards):
            policy_loss.append(-log_prob * Gt)
        policy_loss = torch.cat(policy_loss)  # also: GG109

        optimizer.zero_grad()
        policy_loss.backward()  # expect: GG109
        optimizer.step()
    return list(scores_deque)


def main():
    torch.manual_seed(0)
    env = CartPoleLike(np.random.default_rng(0))
    policy = Policy()
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    reinforce(policy, optimizer, env)


if __name__ == "__main__":
    main()
