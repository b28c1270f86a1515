# gradguard reports GG104 (carried-state-not-detached) on line 12.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rnn = nn.GRU(4, 8, batch_first=True)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(1, 2, 8)
for step in range(3):
    out, h = rnn(torch.randn(2, 5, 4), h)
    loss = F.mse_loss(head(out[:, -1]), torch.randn(2, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
