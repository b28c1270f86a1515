# corpus: PPO agent (one ActorCritic, K update epochs) computes critic values and normalised advantages once before the epoch loop without detaching them, so the second epoch backpropagates into the freed critic graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://devgem.vercel.app/posts/how-to-fix-the-runtimeerror-trying-to-backward-through-the-graph-a-second-time-error-in-proximal-policy-optimization-ppo
import argparse
from dataclasses import dataclass, field
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


@dataclass
class RolloutBuffer:
    states: List[torch.Tensor] = field(default_factory=list)
    actions: List[torch.Tensor] = field(default_factory=list)
    logprobs: List[torch.Tensor] = field(default_factory=list)
    rewards: List[float] = field(default_factory=list)
    is_terminals: List[bool] = field(default_factory=list)

    def clear(self):
        self.states.clear()
        self.actions.clear()
        self.logprobs.clear()
        self.rewards.clear()
        self.is_terminals.clear()


class ActorCritic(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.actor = nn.Sequential(
            nn.Linear(state_dim, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, action_dim), nn.Softmax(dim=-1),
        )
        self.critic = nn.Sequential(
            nn.Linear(state_dim, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, 1),
        )

    def act(self, state):
        probs = self.actor(state)
        dist = Categorical(probs)
        action = dist.sample()
        return action.detach(), dist.log_prob(action).detach()

    def evaluate(self, states, actions):
        probs = self.actor(states)
        dist = Categorical(probs)
        return dist.log_prob(actions), dist.entropy()


class PPO:
    def __init__(self, state_dim, action_dim, args):
        self.gamma = args.gamma
        self.eps_clip = args.eps_clip
        self.k_epochs = args.k_epochs
        self.buffer = RolloutBuffer()
        self.policy = ActorCritic(state_dim, action_dim)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=args.lr)

    def select_action(self, state):
        with torch.no_grad():
            action, logprob = self.policy.act(state)
        self.buffer.states.append(state)
        self.buffer.actions.append(action)
        self.buffer.logprobs.append(logprob)
        return action.item()

    def discounted_returns(self):
        returns = []
        running = 0.0
        for reward, done in zip(reversed(self.buffer.rewards), reversed(self.buffer.is_terminals)):
            if done:
                running = 0.0
            running = reward + self.gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns, dtype=torch.float32)
        return (returns - returns.mean()) / (returns.std() + 1e-7)

    def update(self):
        returns = self.discounted_returns()
        old_states = torch.stack(self.buffer.states)
        old_actions = torch.stack(self.buffer.actions)
        old_logprobs = torch.stack(self.buffer.logprobs)

        # advantages computed once per rollout, as in the paper ...
        state_values = self.policy.critic(old_states).squeeze(-1)  # expect: GG103
        advantages = returns - state_values
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

        stats = {}
        for _ in range(self.k_epochs):
            logprobs, entropy = self.policy.evaluate(old_states, old_actions)
            values = self.policy.critic(old_states).squeeze(-1)
            ratios = torch.exp(logprobs - old_logprobs)
            surr1 = ratios * advantages  # also: GG103
            surr2 = torch.clamp(ratios, 1 - self.eps_clip, 1 + self.eps_clip) * advantages
            loss = -torch.min(surr1, surr2).mean() + 0.5 * F.mse_loss(values, returns) - 0.01 * entropy.mean()
            self.optimizer.zero_grad()
            loss.backward()  # also: GG103
            self.optimizer.step()
            stats["loss"] = loss.item()
        self.buffer.clear()
        return stats


class ToyEnv:
    """Tiny stand-in for a gym environment (4-dim observation, 2 actions)."""

    def __init__(self, horizon=20):
        self.horizon = horizon
        self.t = 0

    def reset(self):
        self.t = 0
        return torch.randn(4)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == 1 else 0.0
        return torch.randn(4), reward, self.t >= self.horizon


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--eps-clip", type=float, default=0.2)
    parser.add_argument("--k-epochs", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=2)
    args = parser.parse_args([])

    torch.manual_seed(0)
    env = ToyEnv()
    agent = PPO(4, 2, args)
    for episode in range(args.episodes):
        state = env.reset()
        done = False
        while not done:
            action = agent.select_action(state)
            state, reward, done = env.step(action)
            agent.buffer.rewards.append(reward)
            agent.buffer.is_terminals.append(done)
        stats = agent.update()
        print(f"episode {episode} loss {stats['loss']:.4f}")


if __name__ == "__main__":
    main()
