# corpus: tianshou-style SACPolicy.learn builds the actor loss on critic1/critic2 outputs, then steps both critic optimizers before actor_loss.backward(), so the actor backward needs critic weights that Adam already changed in place.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/thu-ml/tianshou/issues/37
from copy import deepcopy
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorProb(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(state_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, action_dim)
        self.sigma = nn.Linear(hidden, action_dim)

    def forward(self, s, state=None, info=None):
        s = torch.as_tensor(s, dtype=torch.float32)
        logits = self.model(s)
        mu = self.mu(logits)
        sigma = torch.exp(self.sigma(logits).clamp(-5, 2))
        return (mu, sigma), None


class Critic(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.model = nn.Sequential(
            nn.Linear(state_dim + action_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, s, a):
        s = torch.as_tensor(s, dtype=torch.float32)
        return self.model(torch.cat([s, a], dim=1))


class SACPolicy:
    def __init__(self, actor, actor_optim, critic1, critic1_optim, critic2, critic2_optim,
                 tau=0.005, gamma=0.99, alpha=0.2, action_range=(-1.0, 1.0)):
        self.actor, self.actor_optim = actor, actor_optim
        self.critic1, self.critic1_old = critic1, deepcopy(critic1)
        self.critic1_optim = critic1_optim
        self.critic2, self.critic2_old = critic2, deepcopy(critic2)
        self.critic2_optim = critic2_optim
        self._tau, self._gamma, self._alpha = tau, gamma, alpha
        self._range = action_range
        self._action_scale = (action_range[1] - action_range[0]) / 2
        self._action_bias = (action_range[1] + action_range[0]) / 2
        self.__eps = np.finfo(np.float32).eps.item()

    def sync_weight(self):
        for o, n in zip(self.critic1_old.parameters(), self.critic1.parameters()):
            o.data.copy_(o.data * (1 - self._tau) + n.data * self._tau)
        for o, n in zip(self.critic2_old.parameters(), self.critic2.parameters()):
            o.data.copy_(o.data * (1 - self._tau) + n.data * self._tau)

    def __call__(self, batch, input='obs'):
        obs = getattr(batch, input)
        logits, h = self.actor(obs, info=batch.info)
        dist = torch.distributions.Normal(*logits)
        x = dist.rsample()
        y = torch.tanh(x)
        act = y * self._action_scale + self._action_bias
        log_prob = dist.log_prob(x) - torch.log(
            self._action_scale * (1 - y.pow(2)) + self.__eps)
        act = act.clamp(self._range[0], self._range[1])
        return SimpleNamespace(logits=logits, act=act, state=h, dist=dist,
                               log_prob=log_prob.sum(-1, keepdim=True))

    def learn(self, batch):
        with torch.no_grad():
            obs_next_result = self(batch, input='obs_next')
            a_ = obs_next_result.act
            batch.act = torch.tensor(batch.act, dtype=torch.float)
            target_q = torch.min(
                self.critic1_old(batch.obs_next, a_),
                self.critic2_old(batch.obs_next, a_),
            ) - self._alpha * obs_next_result.log_prob
            rew = torch.tensor(batch.rew, dtype=torch.float)[:, None]
            done = torch.tensor(batch.done, dtype=torch.float)[:, None]
            target_q = rew + (1. - done) * self._gamma * target_q
        obs_result = self(batch)
        a = obs_result.act
        current_q1, current_q1a = self.critic1(
            np.concatenate([batch.obs, batch.obs]), torch.cat([batch.act, a])
        ).split(batch.obs.shape[0])
        current_q2, current_q2a = self.critic2(
            np.concatenate([batch.obs, batch.obs]), torch.cat([batch.act, a])
        ).split(batch.obs.shape[0])
        actor_loss = (self._alpha * obs_result.log_prob - torch.min(
            current_q1a, current_q2a)).mean()
        # critic 1
        critic1_loss = F.mse_loss(current_q1, target_q)
        self.critic1_optim.zero_grad()
        critic1_loss.backward(retain_graph=True)
        self.critic1_optim.step()  # expect: GG111
        # critic 2
        critic2_loss = F.mse_loss(current_q2, target_q)
        self.critic2_optim.zero_grad()
        critic2_loss.backward(retain_graph=True)
        self.critic2_optim.step()  # also: GG111
        # actor
        self.actor_optim.zero_grad()
        actor_loss.backward()  # also: GG111
        self.actor_optim.step()
        self.sync_weight()
        return {
            'loss/actor': actor_loss.item(),
            'loss/critic1': critic1_loss.item(),
            'loss/critic2': critic2_loss.item(),
        }


def sample_batch(rng, batch_size, state_dim, action_dim):
    return SimpleNamespace(
        obs=rng.standard_normal((batch_size, state_dim)).astype(np.float32),
        act=rng.uniform(-1, 1, (batch_size, action_dim)).astype(np.float32),
        rew=rng.standard_normal(batch_size).astype(np.float32),
        done=(rng.random(batch_size) < 0.1).astype(np.float32),
        obs_next=rng.standard_normal((batch_size, state_dim)).astype(np.float32),
        info={},
    )


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    state_dim, action_dim = 3, 1
    actor = ActorProb(state_dim, action_dim)
    critic1 = Critic(state_dim, action_dim)
    critic2 = Critic(state_dim, action_dim)
    policy = SACPolicy(
        actor, torch.optim.Adam(actor.parameters(), lr=1e-3),
        critic1, torch.optim.Adam(critic1.parameters(), lr=1e-3),
        critic2, torch.optim.Adam(critic2.parameters(), lr=1e-3))
    for step in range(5):
        losses = policy.learn(sample_batch(rng, 16, state_dim, action_dim))
        print(step, losses)


if __name__ == "__main__":
    main()
