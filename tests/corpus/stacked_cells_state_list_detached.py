# corpus: the same stacked cells, each layer's state detached at the start of every step
import torch
import torch.nn as nn

torch.manual_seed(0)
cells = nn.ModuleList([nn.GRUCell(3, 5), nn.GRUCell(5, 5)])
head = nn.Linear(5, 1)
optimizer = torch.optim.Adam(list(cells.parameters()) + list(head.parameters()), lr=1e-3)
hidden = [torch.zeros(2, 5), torch.zeros(2, 5)]
for step in range(4):
    hidden = [h.detach() for h in hidden]
    x = torch.randn(2, 3)
    for i, cell in enumerate(cells):
        hidden[i] = cell(x, hidden[i])
        x = hidden[i]
    loss = head(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
