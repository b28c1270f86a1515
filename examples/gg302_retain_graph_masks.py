# gradguard reports GG302 (retain-graph-masks-bug) on line 16.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(4, 8, batch_first=True)
head = nn.Linear(8, 1)
optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)
h = torch.zeros(1, 2, 8)
for step in range(3):
    x = torch.randn(2, 5, 4)
    target = torch.randn(2, 1)
    out, h = rnn(x, h)
    loss = nn.functional.mse_loss(head(out[:, -1]), target)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
