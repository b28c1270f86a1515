# corpus: a WGAN critic step clips the critic's weights through .data after its forward pass and before the backward, so the gradient is computed with weights the forward did not use
import copy

import torch
import torch.nn as nn


def critic_step(critic, optimizer, real):
    optimizer.zero_grad()
    loss = -critic(real).mean()
    for p in critic.parameters():
        p.data.clamp_(-0.01, 0.01)  # expect: GG203
    loss.backward()
    return [p.grad.clone() for p in critic.parameters()]


torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
real = torch.randn(8, 6)
before = copy.deepcopy(critic)
used = critic_step(critic, optimizer, real)
true = torch.autograd.grad(-before(real).mean(), list(before.parameters()))
assert not all(torch.allclose(u, t) for u, t in zip(used, true))
