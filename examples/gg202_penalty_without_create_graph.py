# gradguard reports GG202 (penalty-without-create-graph) on line 13.
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
real = torch.randn(8, 2)
fake = torch.randn(8, 2)
alpha = torch.rand(8, 1)
mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
score = critic(mixed)
grads, = torch.autograd.grad(score.sum(), mixed)
penalty = ((grads.norm(dim=1) - 1) ** 2).mean()
loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
optimizer.zero_grad()
loss.backward()
optimizer.step()
