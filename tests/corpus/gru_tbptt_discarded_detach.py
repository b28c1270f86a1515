# corpus: truncated BPTT with a GRU where the hidden state's detach() result is thrown away
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)

seq = torch.randn(1, 40, 3)
target = seq.roll(-1, dims=1)
gru = nn.GRU(3, 16, batch_first=True)
readout = nn.Linear(16, 3)
optimizer = torch.optim.Adam([*gru.parameters(), *readout.parameters()], lr=1e-3)
bptt = 8
h = torch.zeros(1, 1, 16)

for start in range(0, 40, bptt):
    chunk = seq[:, start:start + bptt]
    tgt = target[:, start:start + bptt]
    h.detach()  # expect: GG112
    out, h = gru(chunk, h)  # expect: GG104
    loss = ((readout(out) - tgt) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(start, loss.item())
