# corpus: a TD target meant as a constant, "detached" by a statement whose result is thrown away; the gradient silently includes the target's own dependence on the weights (no fix is offered: assigning the detach is right here, but the same edit cuts a GAN generator's only gradient elsewhere)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
q_net = nn.Linear(4, 1)
states = torch.randn(8, 4)
next_states = torch.randn(8, 4)
rewards = torch.randn(8, 1)
q = q_net(states)
target = rewards + 0.9 * q_net(next_states)
target.detach()  # expect: GG112
loss = F.mse_loss(q, target)
loss.backward()
