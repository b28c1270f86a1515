# corpus: PPO learner computes advantages from the critic once, outside the mini-epoch loop, and reuses them in every epoch
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/hijkzzz/pymarl2/issues/46
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.distributions import Categorical


@dataclass
class EpisodeBatch:
    obs: torch.Tensor
    actions: torch.Tensor
    old_log_probs: torch.Tensor
    returns: torch.Tensor


class PPOLearner:
    def __init__(self, obs_dim, n_actions, mini_epochs=4, eps_clip=0.2):
        self.actor = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.critic = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        params = list(self.actor.parameters()) + list(self.critic.parameters())
        self.optimiser = torch.optim.Adam(params, lr=3e-4)
        self.mini_epochs = mini_epochs
        self.eps_clip = eps_clip

    def train(self, batch: EpisodeBatch):
        values = self.critic(batch.obs).squeeze(-1)
        advantages = batch.returns - values  # expect: GG103
        stats = {"pg_loss": 0.0, "critic_loss": 0.0}
        for _ in range(self.mini_epochs):
            dist = Categorical(logits=self.actor(batch.obs))
            log_probs = dist.log_prob(batch.actions)
            ratio = torch.exp(log_probs - batch.old_log_probs)
            surr1 = ratio * advantages  # also: GG103
            surr2 = torch.clamp(ratio, 1 - self.eps_clip, 1 + self.eps_clip) * advantages  # also: GG103
            pg_loss = -torch.min(surr1, surr2).mean()
            critic_loss = (self.critic(batch.obs).squeeze(-1) - batch.returns).pow(2).mean()
            loss = pg_loss + 0.5 * critic_loss
            self.optimiser.zero_grad()
            loss.backward()  # also: GG103
            self.optimiser.step()
            stats["pg_loss"] += pg_loss.item()
            stats["critic_loss"] += critic_loss.item()
        return stats


def collect(learner, n_steps=16, obs_dim=6):
    obs = torch.randn(n_steps, obs_dim)
    with torch.no_grad():
        dist = Categorical(logits=learner.actor(obs))
        actions = dist.sample()
        old_log_probs = dist.log_prob(actions)
    rewards = torch.randn(n_steps)
    returns = torch.flip(torch.cumsum(torch.flip(rewards, [0]), 0), [0])
    return EpisodeBatch(obs, actions, old_log_probs, returns)


def main():
    torch.manual_seed(0)
    learner = PPOLearner(obs_dim=6, n_actions=3)
    for _ in range(2):
        learner.train(collect(learner))


if __name__ == "__main__":
    main()
