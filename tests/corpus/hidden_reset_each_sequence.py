# corpus: RNN state re-created for every sequence inside the loop, so nothing is carried
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(3, 5, batch_first=True)
head = nn.Linear(5, 1)
opt = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=1e-3)
for seq in range(3):
    h = torch.zeros(1, 2, 5)
    for t in range(2):
        x = torch.randn(2, 4, 3)
        out, h = rnn(x, h)
        h = h.detach()
        loss = head(out[:, -1]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
