# gradguard reports GG102 (shared-graph-separate-backward) on line 20.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Linear(6, 8)
cls_head = nn.Linear(8, 3)
reg_head = nn.Linear(8, 1)
params = [*encoder.parameters(), *cls_head.parameters(), *reg_head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x = torch.randn(5, 6)
labels = torch.tensor([0, 1, 2, 1, 0])
target = torch.randn(5, 1)
h = torch.relu(encoder(x))
cls_loss = F.cross_entropy(cls_head(h), labels)
reg_loss = F.mse_loss(reg_head(h), target)
opt.zero_grad()
cls_loss.backward()
reg_loss.backward()
opt.step()
