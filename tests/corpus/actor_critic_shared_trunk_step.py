# corpus: actor-critic with a shared trunk; the critic update is applied before the actor loss is backpropagated
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorCritic(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh())
        self.actor = nn.Linear(32, n_actions)
        self.critic = nn.Linear(32, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return self.actor(h), self.critic(h)


torch.manual_seed(0)
ac = ActorCritic(4, 2)
optimizer = torch.optim.Adam(ac.parameters(), lr=3e-4)

for update in range(2):
    obs = torch.randn(8, 4)
    returns = torch.randn(8, 1)
    logits, values = ac(obs)
    log_probs = F.log_softmax(logits, dim=-1)
    actions = torch.randint(0, 2, (8,))
    advantages = (returns - values).detach().squeeze(1)
    critic_loss = F.mse_loss(values, returns)
    actor_loss = -(log_probs[torch.arange(8), actions] * advantages).mean()
    optimizer.zero_grad()
    critic_loss.backward(retain_graph=True)
    optimizer.step()  # expect: GG111
    optimizer.zero_grad()
    actor_loss.backward()
    optimizer.step()
    print(update, critic_loss.item(), actor_loss.item())
