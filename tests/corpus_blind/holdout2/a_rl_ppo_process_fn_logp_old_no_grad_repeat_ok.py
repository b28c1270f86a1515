# corpus: tianshou-style PPOPolicy: process_fn computes returns/advantages and logp_old once under torch.no_grad(), learn() reuses them over several repeats and minibatches, logging only .item() values (correct)
# source: https://github.com/thu-ml/tianshou/issues/883
from types import SimpleNamespace

import torch
import torch.nn as nn
from torch.distributions import Categorical


class Batch(SimpleNamespace):
    def split(self, size):
        n = self.obs.shape[0]
        perm = torch.randperm(n)
        for start in range(0, n, size):
            idx = perm[start:start + size]
            yield Batch(**{k: v[idx] for k, v in vars(self).items()})


class PPOPolicy(nn.Module):
    def __init__(self, obs_dim=4, n_act=2, gamma=0.99, gae_lambda=0.95, eps_clip=0.2):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_act))
        self.critic = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.optim = torch.optim.Adam(self.parameters(), lr=3e-4)
        self._gamma, self._lambda, self._eps_clip = gamma, gae_lambda, eps_clip
        self._weight_vf, self._weight_ent = 0.5, 0.01

    def forward(self, batch):
        return SimpleNamespace(dist=Categorical(logits=self.actor(batch.obs)))

    def _compute_returns(self, batch):
        with torch.no_grad():
            v_s = self.critic(batch.obs).flatten()
            v_s_ = self.critic(batch.obs_next).flatten()
        adv, gae = torch.zeros_like(batch.rew), 0.0
        for t in reversed(range(batch.rew.shape[0])):
            delta = batch.rew[t] + self._gamma * v_s_[t] * (1 - batch.done[t]) - v_s[t]
            gae = delta + self._gamma * self._lambda * (1 - batch.done[t]) * gae
            adv[t] = gae
        batch.returns, batch.adv, batch.v_s = adv + v_s, adv, v_s
        return batch

    def process_fn(self, batch):
        batch = self._compute_returns(batch)
        with torch.no_grad():
            batch.logp_old = self(batch).dist.log_prob(batch.act)
        return batch

    def learn(self, batch, batch_size, repeat):
        losses, clip_losses, vf_losses = [], [], []
        for step in range(repeat):
            for minibatch in batch.split(batch_size):
                dist = self(minibatch).dist
                adv = (minibatch.adv - minibatch.adv.mean()) / (minibatch.adv.std() + 1e-8)
                ratio = (dist.log_prob(minibatch.act) - minibatch.logp_old).exp().float()
                surr1 = ratio * adv
                surr2 = ratio.clamp(1.0 - self._eps_clip, 1.0 + self._eps_clip) * adv
                clip_loss = -torch.min(surr1, surr2).mean()
                value = self.critic(minibatch.obs).flatten()
                vf_loss = (minibatch.returns - value).pow(2).mean()
                ent_loss = dist.entropy().mean()
                loss = clip_loss + self._weight_vf * vf_loss - self._weight_ent * ent_loss
                self.optim.zero_grad()
                loss.backward()
                self.optim.step()
                clip_losses.append(clip_loss.item())
                vf_losses.append(vf_loss.item())
                losses.append(loss.item())
        return {"loss": losses, "loss/clip": clip_losses, "loss/vf": vf_losses}


def collect(policy, n=32, obs_dim=4):
    obs = torch.randn(n, obs_dim)
    with torch.no_grad():
        act = policy(Batch(obs=obs)).dist.sample()
    return Batch(obs=obs, act=act, rew=torch.randn(n), done=(torch.rand(n) < 0.1).float(),
                 obs_next=torch.randn(n, obs_dim))


if __name__ == "__main__":
    torch.manual_seed(0)
    policy = PPOPolicy()
    for epoch in range(3):
        batch = policy.process_fn(collect(policy))
        result = policy.learn(batch, batch_size=8, repeat=3)
        print(epoch, sum(result["loss"]) / len(result["loss"]))
