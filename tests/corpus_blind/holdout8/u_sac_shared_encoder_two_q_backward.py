# corpus: SAC worker encodes the observation once (shared_feature) and feeds it to both Q heads, then backpropagates q1_loss and q2_loss separately; the second backward re-enters the encoder whose saved tensors the first one freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/RLinf/RLinf/pull/677
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class SACConfig:
    obs_dim: int = 12
    act_dim: int = 3
    feature_dim: int = 32
    gamma: float = 0.99
    tau: float = 0.005
    alpha: float = 0.1
    lr: float = 3e-4


class Encoder(nn.Module):
    def __init__(self, obs_dim, feature_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, feature_dim), nn.LayerNorm(feature_dim))

    def forward(self, obs):
        return torch.tanh(self.net(obs))


class QHead(nn.Module):
    def __init__(self, feature_dim, act_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(feature_dim + act_dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, feature, action):
        return self.net(torch.cat([feature, action], dim=-1))


class Actor(nn.Module):
    def __init__(self, feature_dim, act_dim):
        super().__init__()
        self.mu = nn.Linear(feature_dim, act_dim)
        self.log_std = nn.Linear(feature_dim, act_dim)

    def forward(self, feature):
        dist = torch.distributions.Normal(self.mu(feature), self.log_std(feature).clamp(-5, 2).exp())
        u = dist.rsample()
        a = torch.tanh(u)
        return a, (dist.log_prob(u) - torch.log(1 - a.pow(2) + 1e-6)).sum(-1, keepdim=True)


class SACPolicyWorker:
    def __init__(self, cfg):
        self.cfg = cfg
        self.encoder = Encoder(cfg.obs_dim, cfg.feature_dim)
        self.q1, self.q2 = QHead(cfg.feature_dim, cfg.act_dim), QHead(cfg.feature_dim, cfg.act_dim)
        self.actor = Actor(cfg.feature_dim, cfg.act_dim)
        self.target_encoder = Encoder(cfg.obs_dim, cfg.feature_dim)
        self.target_q1, self.target_q2 = QHead(cfg.feature_dim, cfg.act_dim), QHead(cfg.feature_dim, cfg.act_dim)
        for tgt, src in ((self.target_encoder, self.encoder), (self.target_q1, self.q1), (self.target_q2, self.q2)):
            tgt.load_state_dict(src.state_dict())
        self.q1_optimizer = torch.optim.Adam([*self.encoder.parameters(), *self.q1.parameters()], lr=cfg.lr)
        self.q2_optimizer = torch.optim.Adam([*self.encoder.parameters(), *self.q2.parameters()], lr=cfg.lr)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=cfg.lr)

    def get_feature(self, obs, detach_encoder=False):
        feature = self.encoder(obs)
        return feature.detach() if detach_encoder else feature

    @torch.no_grad()
    def compute_target(self, batch):
        next_feature = self.target_encoder(batch["next_obs"])
        next_action, next_logp = self.actor(self.encoder(batch["next_obs"]))
        target_q = torch.min(self.target_q1(next_feature, next_action), self.target_q2(next_feature, next_action))
        return batch["reward"] + self.cfg.gamma * (1 - batch["done"]) * (target_q - self.cfg.alpha * next_logp)

    def update_critic(self, batch):
        target = self.compute_target(batch)
        shared_feature = self.get_feature(batch["obs"])
        q1_loss = F.mse_loss(self.q1(shared_feature, batch["action"]), target)
        q2_loss = F.mse_loss(self.q2(shared_feature, batch["action"]), target)
        self.q1_optimizer.zero_grad()
        q1_loss.backward()
        self.q1_optimizer.step()
        self.q2_optimizer.zero_grad()
        q2_loss.backward()  # expect: GG102
        self.q2_optimizer.step()
        return {"q1_loss": q1_loss.item(), "q2_loss": q2_loss.item()}

    def update_actor(self, batch):
        feature = self.get_feature(batch["obs"], detach_encoder=True)
        action, logp = self.actor(feature)
        q = torch.min(self.q1(feature, action), self.q2(feature, action))
        actor_loss = (self.cfg.alpha * logp - q).mean()
        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()
        return {"actor_loss": actor_loss.item()}

    @torch.no_grad()
    def soft_update_target_model(self):
        for tgt, src in ((self.target_encoder, self.encoder), (self.target_q1, self.q1), (self.target_q2, self.q2)):
            for tp, p in zip(tgt.parameters(), src.parameters()):
                tp.lerp_(p, self.cfg.tau)

    def run_training(self, batch):
        metrics = self.update_critic(batch)
        metrics.update(self.update_actor(batch))
        self.soft_update_target_model()
        return metrics


def sample_batch(cfg, n=32):
    return {
        "obs": torch.randn(n, cfg.obs_dim),
        "action": torch.rand(n, cfg.act_dim) * 2 - 1,
        "reward": torch.randn(n, 1),
        "next_obs": torch.randn(n, cfg.obs_dim),
        "done": torch.zeros(n, 1),
    }


def main():
    torch.manual_seed(0)
    cfg = SACConfig()
    worker = SACPolicyWorker(cfg)
    for step in range(3):
        print(step, worker.run_training(sample_batch(cfg)))


if __name__ == "__main__":
    main()
