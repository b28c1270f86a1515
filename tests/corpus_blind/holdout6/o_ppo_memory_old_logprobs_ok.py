# corpus: PPO-clip agent for a continuous-control toy task stores the behaviour policy's log-probabilities in its rollout memory at collection time (under no_grad) and reuses them as old_log_probs over several epochs of minibatch updates, computing the new log-probs fresh each minibatch (correct)
# source: https://github.com/openai/baselines/issues/87
import argparse
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Normal

Transition = namedtuple("Transition", ("state", "action", "log_prob", "reward", "mask", "value"))


class Memory(object):
    def __init__(self):
        self.memory = []

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self):
        return Transition(*zip(*self.memory))

    def __len__(self):
        return len(self.memory)


class PointMassEnv:
    """Push a 2-D point toward the origin; reward is minus the distance."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.pos = self.rng.uniform(-1, 1, size=2)
        self.t = 0
        return np.concatenate([self.pos, [0.0]]).astype(np.float32)

    def step(self, action):
        self.pos = self.pos + 0.1 * np.clip(action, -1, 1)
        self.t += 1
        reward = -float(np.linalg.norm(self.pos))
        done = self.t >= 20
        return np.concatenate([self.pos, [self.t / 20.0]]).astype(np.float32), reward, done


class ActorCritic(nn.Module):
    def __init__(self, num_inputs, num_outputs, hidden=32):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(num_inputs, hidden), nn.Tanh(), nn.Linear(hidden, num_outputs))
        self.log_std = nn.Parameter(torch.zeros(num_outputs) - 0.5)
        self.critic = nn.Sequential(nn.Linear(num_inputs, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x):
        mu = self.actor(x)
        return Normal(mu, self.log_std.exp().expand_as(mu)), self.critic(x).squeeze(-1)


def collect(env, model, memory, num_steps):
    state = env.reset()
    ep_rewards, ep_reward = [], 0.0
    for _ in range(num_steps):
        s = torch.from_numpy(state).unsqueeze(0)
        with torch.no_grad():
            dist, value = model(s)
            action = dist.sample()
            log_prob = dist.log_prob(action).sum(-1)
        next_state, reward, done = env.step(action.squeeze(0).numpy())
        memory.push(s.squeeze(0), action.squeeze(0), log_prob.squeeze(0), reward, 0.0 if done else 1.0, value.squeeze(0))
        ep_reward += reward
        state = next_state
        if done:
            ep_rewards.append(ep_reward)
            ep_reward = 0.0
            state = env.reset()
    return np.mean(ep_rewards) if ep_rewards else ep_reward


def compute_gae(rewards, masks, values, gamma=0.99, tau=0.95):
    returns = torch.zeros_like(rewards)
    advantages = torch.zeros_like(rewards)
    prev_value, prev_advantage, prev_return = 0.0, 0.0, 0.0
    for i in reversed(range(rewards.size(0))):
        returns[i] = rewards[i] + gamma * prev_return * masks[i]
        delta = rewards[i] + gamma * prev_value * masks[i] - values[i]
        advantages[i] = delta + gamma * tau * prev_advantage * masks[i]
        prev_return, prev_value, prev_advantage = returns[i], values[i], advantages[i]
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    return returns, advantages


def update_params(model, optimizer, memory, args):
    batch = memory.sample()
    states = torch.stack(batch.state)
    actions = torch.stack(batch.action)
    old_log_probs = torch.stack(batch.log_prob)
    values = torch.stack(batch.value)
    rewards = torch.tensor(batch.reward, dtype=torch.float32)
    masks = torch.tensor(batch.mask, dtype=torch.float32)
    returns, advantages = compute_gae(rewards, masks, values, args.gamma, args.tau)

    n = states.size(0)
    for _ in range(args.ppo_epochs):
        perm = torch.randperm(n)
        for start in range(0, n, args.batch_size):
            idx = perm[start:start + args.batch_size]
            dist, value_pred = model(states[idx])
            log_probs = dist.log_prob(actions[idx]).sum(-1)
            ratio = torch.exp(log_probs - old_log_probs[idx])
            surr1 = ratio * advantages[idx]
            surr2 = torch.clamp(ratio, 1.0 - args.clip, 1.0 + args.clip) * advantages[idx]
            policy_loss = -torch.min(surr1, surr2).mean()
            value_loss = (returns[idx] - value_pred).pow(2).mean()
            entropy = dist.entropy().sum(-1).mean()
            loss = policy_loss + args.value_coef * value_loss - args.entropy_coef * entropy

            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
    return loss.item()


def main():
    parser = argparse.ArgumentParser(description="PPO")
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--tau", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ppo_epochs", type=int, default=4)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--num_steps", type=int, default=128)
    parser.add_argument("--value_coef", type=float, default=0.5)
    parser.add_argument("--entropy_coef", type=float, default=0.0)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--iterations", type=int, default=4)
    args = parser.parse_args()

    torch.manual_seed(0)
    env = PointMassEnv()
    model = ActorCritic(3, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for it in range(args.iterations):
        memory = Memory()
        avg_reward = collect(env, model, memory, args.num_steps)
        loss = update_params(model, optimizer, memory, args)
        print("iteration %d  avg episode reward %.3f  last loss %.4f" % (it, avg_reward, loss))


if __name__ == "__main__":
    main()
