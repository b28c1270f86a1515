# corpus: tianshou-style DDPG policy whose actor ends in a Softmax; the policy's forward shifts the actor output in place (logits += action_bias), overwriting the softmax result that SoftmaxBackward saved, so the actor update fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/thu-ml/tianshou/issues/29
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


class Actor(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(state_dim, hidden), nn.ReLU(),
                                   nn.Linear(hidden, action_dim))

    def forward(self, s, state=None):
        logits = self.model(s)
        return F.softmax(logits, dim=-1), state


class Critic(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(state_dim + action_dim, hidden), nn.ReLU(),
                                   nn.Linear(hidden, 1))

    def forward(self, s, a):
        return self.model(torch.cat([s, a], dim=1))


@dataclass
class Batch:
    obs: torch.Tensor
    act: torch.Tensor
    rew: torch.Tensor
    obs_next: torch.Tensor
    done: torch.Tensor


class DDPGPolicy:
    def __init__(self, actor, actor_optim, critic, critic_optim, action_range,
                 tau=0.005, gamma=0.99, exploration_noise=0.1):
        self.actor, self.actor_old = actor, Actor(4, 2)
        self.actor_old.load_state_dict(actor.state_dict())
        self.critic, self.critic_old = critic, Critic(4, 2)
        self.critic_old.load_state_dict(critic.state_dict())
        self.actor_optim, self.critic_optim = actor_optim, critic_optim
        self._range = action_range
        self._action_bias = (action_range[0] + action_range[1]) / 2
        self._tau, self._gamma, self._eps = tau, gamma, exploration_noise

    def sync_weight(self):
        for o, n in zip(self.actor_old.parameters(), self.actor.parameters()):
            o.data.copy_(o.data * (1 - self._tau) + n.data * self._tau)
        for o, n in zip(self.critic_old.parameters(), self.critic.parameters()):
            o.data.copy_(o.data * (1 - self._tau) + n.data * self._tau)

    def forward(self, obs, model="actor", eps=None):
        model = getattr(self, model)
        logits, h = model(obs)
        logits += self._action_bias  # expect: GG107
        if eps is None:
            eps = self._eps
        if eps > 0:
            logits = logits + torch.randn(logits.size()) * eps
        logits = logits.clamp(self._range[0], self._range[1])
        return logits

    def learn(self, batch):
        with torch.no_grad():
            target_q = self.critic_old(batch.obs_next, self.forward(batch.obs_next, "actor_old", eps=0.0))
            target_q = batch.rew + (1.0 - batch.done) * self._gamma * target_q
        current_q = self.critic(batch.obs, batch.act)
        critic_loss = F.mse_loss(current_q, target_q)
        self.critic_optim.zero_grad()
        critic_loss.backward()
        self.critic_optim.step()
        actor_loss = -self.critic(batch.obs, self.forward(batch.obs, eps=0.0)).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()  # also: GG107
        self.actor_optim.step()
        self.sync_weight()
        return {"loss/actor": actor_loss.item(), "loss/critic": critic_loss.item()}


def sample_batch(n=16):
    return Batch(obs=torch.randn(n, 4), act=torch.rand(n, 2), rew=torch.randn(n, 1),
                 obs_next=torch.randn(n, 4), done=torch.zeros(n, 1))


def main():
    actor, critic = Actor(4, 2), Critic(4, 2)
    policy = DDPGPolicy(actor, torch.optim.Adam(actor.parameters(), lr=1e-3),
                        critic, torch.optim.Adam(critic.parameters(), lr=1e-3),
                        action_range=(0.0, 1.0))
    for step in range(3):
        stats = policy.learn(sample_batch())
        print(step, stats)


if __name__ == "__main__":
    main()
