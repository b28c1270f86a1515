# corpus: a DDPG agent builds its actor and critic with an MLP helper class (layers from a list of sizes, activation passed as a default function); the critic's step runs between building the actor loss through the critic and its backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, sizes, activation=torch.relu, out_activation=None):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(i, o) for i, o in zip(sizes[:-1], sizes[1:])])
        self.activation = activation
        self.out_activation = out_activation

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.activation(layer(x))
        x = self.layers[-1](x)
        return x if self.out_activation is None else self.out_activation(x)


def update(actor, critic, actor_opt, critic_opt, obs, act, target):
    q = critic(torch.cat([obs, act], 1)).squeeze(1)
    q_pi = critic(torch.cat([obs, actor(obs)], 1)).squeeze(1)
    actor_loss = -q_pi.mean()
    critic_loss = F.mse_loss(q, target)
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()  # expect: GG111
    actor_opt.zero_grad()
    actor_loss.backward()  # also: GG111
    actor_opt.step()


def main(hidden=(32, 32)):
    torch.manual_seed(0)
    actor = MLP([5, *hidden, 2], out_activation=torch.tanh)
    critic = MLP([7, *hidden, 1])
    actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for _ in range(2):
        update(actor, critic, actor_opt, critic_opt, torch.randn(8, 5), torch.rand(8, 2), torch.randn(8))


if __name__ == "__main__":
    main()
