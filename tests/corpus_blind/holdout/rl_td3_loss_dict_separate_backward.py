# corpus: TD3 loss module evaluates both Q-nets once on data and actor actions and returns a loss dict; the training loop backprops loss_actor and loss_qvalue separately
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/rl/issues/1187
import copy

import torch
import torch.nn as nn


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, act_dim), nn.Tanh())

    def forward(self, obs):
        return self.net(obs)


class TwinQ(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.qs = nn.ModuleList([
            nn.Sequential(nn.Linear(obs_dim + act_dim, 32), nn.ReLU(), nn.Linear(32, 1)) for _ in range(2)
        ])

    def forward(self, obs, act):
        x = torch.cat([obs, act], dim=-1)
        return torch.stack([q(x).squeeze(-1) for q in self.qs])


class TD3Loss(nn.Module):
    def __init__(self, actor, qvalue, gamma=0.99, policy_noise=0.2, noise_clip=0.5):
        super().__init__()
        self.actor = actor
        self.qvalue = qvalue
        self.target_actor = copy.deepcopy(actor).requires_grad_(False)
        self.target_qvalue = copy.deepcopy(qvalue).requires_grad_(False)
        self.gamma = gamma
        self.policy_noise = policy_noise
        self.noise_clip = noise_clip

    def forward(self, batch):
        obs, action, reward, next_obs, done = (batch[k] for k in ("obs", "action", "reward", "next_obs", "done"))
        B = obs.shape[0]
        actor_action = self.actor(obs)
        # one vectorized critic call on (data actions, actor actions)
        q_all = self.qvalue(torch.cat([obs, obs]), torch.cat([action, actor_action]))
        q_data, q_actor = q_all[:, :B], q_all[:, B:]
        with torch.no_grad():
            noise = (torch.randn_like(action) * self.policy_noise).clamp(-self.noise_clip, self.noise_clip)
            next_action = (self.target_actor(next_obs) + noise).clamp(-1, 1)
            next_q = self.target_qvalue(next_obs, next_action).min(0)[0]
            target = reward + self.gamma * (1 - done) * next_q
        return {
            "loss_actor": -q_actor[0].mean(),
            "loss_qvalue": (q_data - target).pow(2).mean(),
        }


def sample_batch(B=16, obs_dim=5, act_dim=2):
    return {"obs": torch.randn(B, obs_dim), "action": torch.rand(B, act_dim) * 2 - 1,
            "reward": torch.randn(B), "next_obs": torch.randn(B, obs_dim), "done": torch.zeros(B)}


def main():
    torch.manual_seed(0)
    actor, qvalue = Actor(5, 2), TwinQ(5, 2)
    loss_module = TD3Loss(actor, qvalue)
    actor_optim = torch.optim.Adam(actor.parameters(), lr=3e-4)
    critic_optim = torch.optim.Adam(qvalue.parameters(), lr=3e-4)
    for it in range(3):
        loss = loss_module(sample_batch())
        actor_optim.zero_grad()
        loss["loss_actor"].backward()  # expect: GG102
        actor_optim.step()  # also: GG102, GG111
        critic_optim.zero_grad()
        loss["loss_qvalue"].backward()  # also: GG102
        critic_optim.step()


if __name__ == "__main__":
    main()
