# corpus: truncated BPTT for an LSTM regressor, detaching (h, c) at the top of each chunk
import torch
import torch.nn as nn

torch.manual_seed(0)

series = torch.sin(torch.linspace(0, 12, 61)).view(1, 61, 1)
lstm = nn.LSTM(1, 12, batch_first=True)
proj = nn.Linear(12, 1)
optimizer = torch.optim.Adam([*lstm.parameters(), *proj.parameters()], lr=5e-3)
h = torch.zeros(1, 1, 12)
c = torch.zeros(1, 1, 12)
chunk = 10

for start in range(0, 60, chunk):
    h, c = h.detach(), c.detach()
    inp = series[:, start:start + chunk]
    tgt = series[:, start + 1:start + chunk + 1]
    out, (h, c) = lstm(inp, (h, c))
    loss = ((proj(out) - tgt) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(start, loss.item())
