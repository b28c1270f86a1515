# corpus: a DDPG learner keeps its losses in a dict and backpropagates the actor loss before the critic's step changes the critic (the critic's stray gradient from the actor loss is cleared first)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner:
    def __init__(self, obs_dim: int = 4, act_dim: int = 2) -> None:
        self.actor = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU(), nn.Linear(16, act_dim), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(obs_dim + act_dim, 16), nn.ReLU(), nn.Linear(16, 1))
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def losses(self, obs, act, target):
        q_pi = self.critic(torch.cat([obs, self.actor(obs)], dim=1))
        q = self.critic(torch.cat([obs, act], dim=1))
        return {"actor": -q_pi.mean(), "critic": F.mse_loss(q, target)}

    def update(self, obs, act, target):
        losses = self.losses(obs, act, target)
        self.actor_opt.zero_grad()
        losses["actor"].backward()
        self.actor_opt.step()
        self.critic_opt.zero_grad()
        losses["critic"].backward()
        self.critic_opt.step()
        return {k: v.item() for k, v in losses.items()}


torch.manual_seed(0)
learner = Learner()
for _ in range(2):
    print(learner.update(torch.randn(8, 4), torch.rand(8, 2) * 2 - 1, torch.randn(8, 1)))
