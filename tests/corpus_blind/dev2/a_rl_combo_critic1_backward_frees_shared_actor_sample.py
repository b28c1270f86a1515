# corpus: COMBO/CQL policy computes both conservative critic losses from one shared actor sample (calc_pi_values) and backpropagates critic1 then critic2 separately without retain_graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/yihaosun1124/OfflineRL-Kit/issues/15
from typing import Dict, Tuple

import torch
import torch.nn as nn


class TanhGaussianActor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU())
        self.mu = nn.Linear(32, act_dim)
        self.log_std = nn.Linear(32, act_dim)

    def forward(self, obs) -> Tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs)
        dist = torch.distributions.Normal(self.mu(h), self.log_std(h).clamp(-5, 2).exp())
        raw = dist.rsample()
        act = torch.tanh(raw)
        log_prob = dist.log_prob(raw).sum(-1, keepdim=True) - torch.log(1 - act.pow(2) + 1e-6).sum(-1, keepdim=True)
        return act, log_prob


class Critic(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim + act_dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1))


class COMBOPolicy:
    def __init__(self, obs_dim=5, act_dim=2, num_repeat=4, cql_weight=1.0):
        self.actor = TanhGaussianActor(obs_dim, act_dim)
        self.critic1, self.critic2 = Critic(obs_dim, act_dim), Critic(obs_dim, act_dim)
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic1_optim = torch.optim.Adam(self.critic1.parameters(), lr=1e-3)
        self.critic2_optim = torch.optim.Adam(self.critic2.parameters(), lr=1e-3)
        self._num_repeat, self._cql_weight, self._gamma, self._alpha = num_repeat, cql_weight, 0.99, 0.2

    def calc_pi_values(self, obs_pi, obs_to_pred):
        act, log_prob = self.actor(obs_pi)  # also: GG102
        q1 = self.critic1(obs_to_pred, act)
        q2 = self.critic2(obs_to_pred, act)
        return q1 - log_prob.detach(), q2 - log_prob.detach()

    def learn(self, batch: Dict[str, torch.Tensor]) -> Dict[str, float]:
        obss, actions, next_obss = batch["observations"], batch["actions"], batch["next_observations"]
        rewards, terminals = batch["rewards"], batch["terminals"]
        a, log_probs = self.actor(obss)
        actor_loss = (self._alpha * log_probs - torch.min(self.critic1(obss, a), self.critic2(obss, a))).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()

        with torch.no_grad():
            next_actions, _ = self.actor(next_obss)
            next_q = torch.min(self.critic1(next_obss, next_actions), self.critic2(next_obss, next_actions))
        target_q = rewards + self._gamma * (1 - terminals) * next_q
        q1, q2 = self.critic1(obss, actions), self.critic2(obss, actions)
        critic1_loss = (q1 - target_q).pow(2).mean()
        critic2_loss = (q2 - target_q).pow(2).mean()

        bs = obss.shape[0]
        tmp_obss = obss.unsqueeze(1).repeat(1, self._num_repeat, 1).view(bs * self._num_repeat, -1)
        obs_pi_value1, obs_pi_value2 = self.calc_pi_values(tmp_obss, tmp_obss)
        cat_q1 = obs_pi_value1.view(bs, self._num_repeat, 1)
        cat_q2 = obs_pi_value2.view(bs, self._num_repeat, 1)
        conservative_loss1 = torch.logsumexp(cat_q1, dim=1).mean() * self._cql_weight - q1.mean() * self._cql_weight
        conservative_loss2 = torch.logsumexp(cat_q2, dim=1).mean() * self._cql_weight - q2.mean() * self._cql_weight
        critic1_loss = critic1_loss + conservative_loss1
        critic2_loss = critic2_loss + conservative_loss2

        self.critic1_optim.zero_grad()
        critic1_loss.backward()  # expect: GG102
        self.critic1_optim.step()

        self.critic2_optim.zero_grad()
        critic2_loss.backward()  # also: GG102
        self.critic2_optim.step()
        return {"loss/actor": actor_loss.item(), "loss/critic1": critic1_loss.item(), "loss/critic2": critic2_loss.item()}


def fake_batch(n=16, obs_dim=5, act_dim=2):
    return {
        "observations": torch.randn(n, obs_dim),
        "actions": torch.rand(n, act_dim) * 2 - 1,
        "next_observations": torch.randn(n, obs_dim),
        "rewards": torch.randn(n, 1),
        "terminals": (torch.rand(n, 1) < 0.1).float(),
    }


if __name__ == "__main__":
    torch.manual_seed(0)
    policy = COMBOPolicy()
    for it in range(3):
        print(policy.learn(fake_batch()))
