# corpus: PPO learner with gradient accumulation over minibatches clears the gradients before every minibatch although it steps only every grad_acc_steps minibatches, so each step applies only the last minibatch's gradient
# source: https://github.com/HorizonRobotics/alf/pull/1788
import argparse
from collections import namedtuple

import torch
import torch.nn as nn

Rollout = namedtuple("Rollout", ["obs", "actions", "old_log_probs", "advantages", "returns"])


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return torch.distributions.Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


class PPOLearner:
    def __init__(self, model, args):
        self.model = model
        self.args = args
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    def compute_loss(self, mb):
        dist, values = self.model(mb.obs)
        log_probs = dist.log_prob(mb.actions)
        ratio = torch.exp(log_probs - mb.old_log_probs)
        surr1 = ratio * mb.advantages
        surr2 = torch.clamp(ratio, 1 - self.args.clip, 1 + self.args.clip) * mb.advantages
        policy_loss = -torch.min(surr1, surr2).mean()
        value_loss = (mb.returns - values).pow(2).mean()
        return policy_loss + 0.5 * value_loss - 0.01 * dist.entropy().mean()

    def minibatches(self, rollout):
        n = rollout.obs.shape[0]
        perm = torch.randperm(n)
        for start in range(0, n, self.args.minibatch_size):
            idx = perm[start:start + self.args.minibatch_size]
            yield Rollout(*(t[idx] for t in rollout))

    def update(self, rollout):
        stats = []
        for epoch in range(self.args.ppo_epochs):
            for i, mb in enumerate(self.minibatches(rollout)):
                self.optimizer.zero_grad()  # expect: GG201
                loss = self.compute_loss(mb) / self.args.grad_acc_steps
                loss.backward()
                if (i + 1) % self.args.grad_acc_steps == 0:
                    nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                    self.optimizer.step()
                stats.append(loss.item())
        return sum(stats) / len(stats)


def collect_rollout(model, n, obs_dim):
    obs = torch.randn(n, obs_dim)
    with torch.no_grad():
        dist, values = model(obs)
        actions = dist.sample()
        log_probs = dist.log_prob(actions)
    returns = torch.randn(n)
    advantages = returns - values
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    return Rollout(obs, actions, log_probs, advantages, returns)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ppo-epochs", type=int, default=2)
    parser.add_argument("--minibatch-size", type=int, default=16)
    parser.add_argument("--grad-acc-steps", type=int, default=4)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = ActorCritic(8, 4)
    learner = PPOLearner(model, args)
    for it in range(3):
        rollout = collect_rollout(model, 128, 8)
        print(it, learner.update(rollout))


if __name__ == "__main__":
    main()
