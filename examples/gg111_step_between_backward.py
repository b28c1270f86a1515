# gradguard reports GG111 (step-between-backward) on line 14.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4)
out = model(x)
loss_a = out[:, 0].pow(2).mean()
loss_b = out[:, 1].abs().mean()
optimizer.zero_grad()
loss_a.backward(retain_graph=True)
optimizer.step()
loss_b.backward()
