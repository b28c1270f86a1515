# corpus: teacher-forced GRU decoder that sums per-step losses over time and calls backward once per batch
import torch
import torch.nn as nn

torch.manual_seed(0)

vocab, hid = 12, 16
embed = nn.Embedding(vocab, 8)
cell = nn.GRUCell(8, hid)
out_proj = nn.Linear(hid, vocab)
optimizer = torch.optim.Adam([*embed.parameters(), *cell.parameters(), *out_proj.parameters()], lr=1e-3)
criterion = nn.CrossEntropyLoss()

for batch in range(3):
    tgt = torch.randint(0, vocab, (4, 6))
    h = torch.zeros(4, hid)
    loss = 0
    for t in range(tgt.size(1) - 1):
        h = cell(embed(tgt[:, t]), h)
        loss += criterion(out_proj(h), tgt[:, t + 1])
    loss = loss / (tgt.size(1) - 1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(batch, loss.item())
