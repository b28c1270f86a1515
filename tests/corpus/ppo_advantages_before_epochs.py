# corpus: a PPO learner computes advantages from the critic once, outside its optimisation epochs, and uses them in the clipped surrogate (torch.min of two tensors) every epoch
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
from torch.distributions import Categorical


class PPO:
    def __init__(self):
        self.actor = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
        self.critic = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
        self.opt = torch.optim.Adam([*self.actor.parameters(), *self.critic.parameters()], lr=3e-4)

    def update(self, obs, actions, old_log_probs, returns, epochs=3):
        advantages = returns - self.critic(obs).squeeze(-1)  # expect: GG103
        for _ in range(epochs):
            ratio = torch.exp(Categorical(logits=self.actor(obs)).log_prob(actions) - old_log_probs)
            surrogate = torch.min(ratio * advantages, torch.clamp(ratio, 0.8, 1.2) * advantages)
            loss = -surrogate.mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()


torch.manual_seed(0)
ppo = PPO()
obs = torch.randn(8, 6)
with torch.no_grad():
    dist = Categorical(logits=ppo.actor(obs))
    actions = dist.sample()
    old = dist.log_prob(actions)
ppo.update(obs, actions, old, torch.randn(8))
