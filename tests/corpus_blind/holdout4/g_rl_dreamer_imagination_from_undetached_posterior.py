# corpus: Dreamer-style agent; the world-model loss and the actor loss share the RSSM posterior forward, the model loss is backpropagated first and imagination then starts from the un-detached posterior, so the actor backward re-enters the freed world-model graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/danijar/dreamer/issues/3
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Batch = namedtuple("Batch", ["obs", "actions", "rewards"])


class RSSM(nn.Module):
    def __init__(self, embed_dim, action_dim, deter_dim, stoch_dim):
        super().__init__()
        self.cell = nn.GRUCell(stoch_dim + action_dim, deter_dim)
        self.prior_net = nn.Sequential(nn.Linear(deter_dim, 32), nn.ELU(), nn.Linear(32, stoch_dim))
        self.post_net = nn.Sequential(nn.Linear(deter_dim + embed_dim, 32), nn.ELU(), nn.Linear(32, stoch_dim))
        self.deter_dim = deter_dim
        self.stoch_dim = stoch_dim

    def initial(self, batch_size):
        return torch.zeros(batch_size, self.deter_dim), torch.zeros(batch_size, self.stoch_dim)

    def img_step(self, deter, stoch, action):
        deter = self.cell(torch.cat([stoch, action], -1), deter)
        stoch = torch.tanh(self.prior_net(deter))
        return deter, stoch

    def observe(self, embed, actions):
        deter, stoch = self.initial(embed.size(1))
        posts, priors = [], []
        for t in range(embed.size(0)):
            deter, prior = self.img_step(deter, stoch, actions[t])
            stoch = torch.tanh(self.post_net(torch.cat([deter, embed[t]], -1)))
            posts.append(torch.cat([deter, stoch], -1))
            priors.append(prior)
        return torch.stack(posts), torch.stack(priors)


class WorldModel(nn.Module):
    def __init__(self, obs_dim, action_dim, deter_dim=16, stoch_dim=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 32), nn.ELU(), nn.Linear(32, 16))
        self.rssm = RSSM(16, action_dim, deter_dim, stoch_dim)
        feat_dim = deter_dim + stoch_dim
        self.decoder = nn.Sequential(nn.Linear(feat_dim, 32), nn.ELU(), nn.Linear(32, obs_dim))
        self.reward_head = nn.Sequential(nn.Linear(feat_dim, 32), nn.ELU(), nn.Linear(32, 1))


class DreamerAgent:
    def __init__(self, obs_dim, action_dim, horizon=5, gamma=0.99):
        self.world_model = WorldModel(obs_dim, action_dim)
        feat_dim = self.world_model.rssm.deter_dim + self.world_model.rssm.stoch_dim
        self.actor = nn.Sequential(nn.Linear(feat_dim, 32), nn.ELU(), nn.Linear(32, action_dim), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(feat_dim, 32), nn.ELU(), nn.Linear(32, 1))
        self.model_opt = torch.optim.Adam(self.world_model.parameters(), lr=6e-4)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=8e-5)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=8e-5)
        self.horizon = horizon
        self.gamma = gamma

    def world_model_loss(self, batch):
        wm = self.world_model
        embed = wm.encoder(batch.obs)
        post, prior = wm.rssm.observe(embed, batch.actions)
        stoch_dim = wm.rssm.stoch_dim
        recon_loss = F.mse_loss(wm.decoder(post), batch.obs)
        reward_loss = F.mse_loss(wm.reward_head(post).squeeze(-1), batch.rewards)
        kl_loss = F.mse_loss(prior, post[..., -stoch_dim:].detach())
        losses = {"recon": recon_loss, "reward": reward_loss, "kl": kl_loss}
        return sum(losses.values()), losses, post

    def imagine(self, start):
        rssm = self.world_model.rssm
        deter, stoch = start[:, :rssm.deter_dim], start[:, rssm.deter_dim:]
        feats = []
        for _ in range(self.horizon):
            action = self.actor(torch.cat([deter, stoch], -1))
            deter, stoch = rssm.img_step(deter, stoch, action)
            feats.append(torch.cat([deter, stoch], -1))
        return torch.stack(feats)

    def lambda_returns(self, rewards, values):
        returns = []
        last = values[-1]
        for t in reversed(range(rewards.size(0))):
            last = rewards[t] + self.gamma * last
            returns.append(last)
        return torch.stack(returns[::-1])

    def train_step(self, batch):
        model_loss, logs, post = self.world_model_loss(batch)
        self.model_opt.zero_grad()
        model_loss.backward()
        self.model_opt.step()

        start = post.reshape(-1, post.size(-1))  # expect: GG102
        imag_feat = self.imagine(start)
        imag_reward = self.world_model.reward_head(imag_feat).squeeze(-1)
        imag_value = self.critic(imag_feat).squeeze(-1)
        returns = self.lambda_returns(imag_reward, imag_value)
        actor_loss = -returns.mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()  # also: GG102
        self.actor_opt.step()

        value_pred = self.critic(imag_feat.detach()).squeeze(-1)
        value_loss = F.mse_loss(value_pred, returns.detach())
        self.critic_opt.zero_grad()
        value_loss.backward()
        self.critic_opt.step()
        logs.update(actor=actor_loss, value=value_loss)
        return {k: v.item() for k, v in logs.items()}


def main():
    torch.manual_seed(0)
    T, B, obs_dim, action_dim = 6, 3, 10, 2
    agent = DreamerAgent(obs_dim, action_dim)
    for step in range(2):
        batch = Batch(obs=torch.randn(T, B, obs_dim),
                      actions=torch.rand(T, B, action_dim) * 2 - 1,
                      rewards=torch.randn(T, B))
        print(step, agent.train_step(batch))


if __name__ == "__main__":
    main()
