# corpus: REINFORCE agent keeps episodes (with their log_probs) for replay; finish_episode() re-backprops a freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/examples/issues/151
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

GAMMA = 0.99
EPS = 1e-6


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.affine1 = nn.Linear(obs_dim, 32)
        self.affine2 = nn.Linear(32, n_actions)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        return F.softmax(self.affine2(x), dim=1)


class ToyEnv:
    def __init__(self, horizon=8):
        self.horizon = horizon
        self.t = 0

    def reset(self):
        self.t = 0
        return torch.randn(4)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == 1 else 0.0
        return torch.randn(4), reward, self.t >= self.horizon


def select_action(policy, state):
    probs = policy(state.unsqueeze(0))
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def discounted_returns(rewards):
    R = 0.0
    returns = []
    for r in reversed(rewards):
        R = r + GAMMA * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    return (returns - returns.mean()) / (returns.std() + EPS)


def finish_episode(policy, optimizer, episode):
    log_probs, rewards = episode
    returns = discounted_returns(rewards)
    policy_loss = [-log_prob * R for log_prob, R in zip(log_probs, returns)]
    optimizer.zero_grad()
    loss = torch.cat(policy_loss).sum()  # also: GG101
    loss.backward()  # also: GG101
    optimizer.step()


def main():
    torch.manual_seed(0)
    random.seed(0)
    env = ToyEnv()
    policy = Policy()
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    memory = []
    for i_episode in range(3):
        state = env.reset()
        done = False
        while not done:
            action = select_action(policy, state)
            state, reward, done = env.step(action)
            policy.rewards.append(reward)
        # keep the episode so it can be re-sampled later ("experience" for PG)
        memory.append((policy.saved_log_probs[:], policy.rewards[:]))  # expect: GG101
        del policy.saved_log_probs[:]
        del policy.rewards[:]
        for episode in random.sample(memory, k=min(2, len(memory))):
            finish_episode(policy, optimizer, episode)  # also: GG101


if __name__ == "__main__":
    main()
