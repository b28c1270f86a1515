# gradguard reports GG109 (nonscalar-backward) on line 13.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss(reduction="none")
x = torch.randn(8, 4)
y = torch.randn(8, 1)
loss = criterion(model(x), y)
opt.zero_grad()
loss.backward()
opt.step()
