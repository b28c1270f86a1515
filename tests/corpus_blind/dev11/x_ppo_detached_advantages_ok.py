# corpus: DDPO-style PPO update: advantages and old log-probs are computed once under no_grad before the inner epochs, each minibatch builds a fresh graph, and stats are kept as detached tensors; trains cleanly
# source: https://github.com/kvablack/ddpo-pytorch/issues/12
from collections import defaultdict
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class TrainConfig:
    num_inner_epochs: int = 2
    batch_size: int = 4
    adv_clip_max: float = 5.0
    clip_range: float = 1e-1
    lr: float = 3e-3


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim=3, act_dim=2):
        super().__init__()
        self.mean = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh(), nn.Linear(16, act_dim))
        self.log_std = nn.Parameter(torch.zeros(act_dim))

    def log_prob(self, obs, actions):
        dist = torch.distributions.Normal(self.mean(obs), self.log_std.exp())
        return dist.log_prob(actions).sum(-1)


def reward_fn(actions):
    return -(actions - 0.5).pow(2).sum(-1)


@torch.no_grad()
def sample_rollouts(policy, n=8, obs_dim=3):
    obs = torch.randn(n, obs_dim)
    dist = torch.distributions.Normal(policy.mean(obs), policy.log_std.exp())
    actions = dist.sample()
    rewards = reward_fn(actions)
    advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
    return {"obs": obs, "actions": actions, "log_probs": dist.log_prob(actions).sum(-1), "advantages": advantages}


def train_epoch(policy, optimizer, samples, cfg):
    info = defaultdict(list)
    n = samples["obs"].shape[0]
    for inner_epoch in range(cfg.num_inner_epochs):
        perm = torch.randperm(n)
        for start in range(0, n, cfg.batch_size):
            idx = perm[start:start + cfg.batch_size]
            sample = {k: v[idx] for k, v in samples.items()}
            log_prob = policy.log_prob(sample["obs"], sample["actions"])
            advantages = torch.clamp(sample["advantages"], -cfg.adv_clip_max, cfg.adv_clip_max)
            ratio = torch.exp(log_prob - sample["log_probs"])
            unclipped_loss = -advantages * ratio
            clipped_loss = -advantages * torch.clamp(ratio, 1.0 - cfg.clip_range, 1.0 + cfg.clip_range)
            loss = torch.mean(torch.maximum(unclipped_loss, clipped_loss))
            info["approx_kl"].append(0.5 * torch.mean((log_prob - sample["log_probs"]) ** 2).detach())
            info["clipfrac"].append(torch.mean((torch.abs(ratio - 1.0) > cfg.clip_range).float()).detach())
            info["loss"].append(loss.detach())
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
    return {k: torch.stack(v).mean().item() for k, v in info.items()}


def main():
    torch.manual_seed(0)
    cfg = TrainConfig()
    policy = GaussianPolicy()
    optimizer = torch.optim.AdamW(policy.parameters(), lr=cfg.lr)
    w0 = policy.mean[0].weight.detach().clone()
    for epoch in range(3):
        samples = sample_rollouts(policy)
        stats = train_epoch(policy, optimizer, samples, cfg)
        print(epoch, {k: round(v, 4) for k, v in stats.items()})
    print("weight change", (policy.mean[0].weight - w0).abs().max().item())


if __name__ == "__main__":
    main()
