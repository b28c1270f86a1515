# gradguard reports GG106 (backward-without-graph) on line 14.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
pred = model(x).detach()
loss = F.mse_loss(pred, y)
opt.zero_grad()
loss.backward()
opt.step()
