# corpus: streaming GRU trained with a while loop; the carried hidden state is detached first thing each iteration
import torch
import torch.nn as nn

torch.manual_seed(0)

cell = nn.GRUCell(3, 10)
head = nn.Linear(10, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=1e-3)
stream = torch.randn(30, 2, 3)
h = torch.zeros(2, 10)
t = 0

while t < stream.size(0) - 1:
    h = h.detach()
    h = cell(stream[t], h)
    loss = (head(h) - stream[t + 1, :, :1]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    t += 1
print("final loss", loss.item())
