# corpus: actor-critic with module-level loss functions and a dataclass batch; the actor loss is built through the critic, the critic steps, then the actor loss is backpropagated
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG111.md (shape: 2, 4)
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Batch:
    states: torch.Tensor
    returns: torch.Tensor


def q_value(critic, states, actions):
    return critic(torch.cat([states, actions], dim=1))


def actor_objective(critic, states, actions):
    return -q_value(critic, states, actions).mean()


def critic_objective(critic, batch, actions):
    return (q_value(critic, batch.states, actions) - batch.returns).pow(2).mean()


def train_step(actor, critic, opt_actor, opt_critic, batch):
    actions = actor(batch.states)
    actor_loss = actor_objective(critic, batch.states, actions)
    critic_loss = critic_objective(critic, batch, actions.detach())
    opt_critic.zero_grad()
    critic_loss.backward()
    opt_critic.step()  # expect: GG111
    opt_actor.zero_grad()
    actor_loss.backward()  # also: GG111
    opt_actor.step()
    return actor_loss.item(), critic_loss.item()


def main():
    torch.manual_seed(0)
    actor = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
    critic = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
    opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-3)
    opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for it in range(3):
        batch = Batch(states=torch.randn(16, 3), returns=torch.randn(16, 1))
        train_step(actor, critic, opt_actor, opt_critic, batch)


if __name__ == "__main__":
    main()
