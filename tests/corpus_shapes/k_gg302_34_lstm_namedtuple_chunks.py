# corpus: TBPTT over namedtuple chunks built with zip; the LSTM (h, c) tuple is carried across chunks without detach and backward(retain_graph=True) hides it until the optimizer step breaks the second backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG302.md (shape: 3, 4)
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Chunk = namedtuple("Chunk", ["x", "y"])

torch.manual_seed(0)
lstm = nn.LSTM(3, 8, batch_first=True)
head = nn.Linear(8, 1)
optimizer = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
sequence, targets = torch.randn(2, 12, 3), torch.randn(2, 12, 1)
chunks = [Chunk(x, y) for x, y in zip(sequence.split(4, dim=1), targets.split(4, dim=1))]
h, c = torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)
losses = []
for i, chunk in enumerate(chunks):
    out, (h, c) = lstm(chunk.x, (h, c))  # also: GG302
    loss = F.mse_loss(head(out), chunk.y)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # expect: GG302
    optimizer.step()
    losses.append(loss.item())
