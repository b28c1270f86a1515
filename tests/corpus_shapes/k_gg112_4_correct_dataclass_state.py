# corpus: correct: LSTM state kept in a dataclass whose detached() method returns a new record of detached tensors, assigned back at the top of every chunk
# source: docs/rules/GG112.md (shape: 4)
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class RecurrentState:
    h: torch.Tensor
    c: torch.Tensor

    def detached(self) -> "RecurrentState":
        return RecurrentState(self.h.detach(), self.c.detach())

    def as_tuple(self):
        return self.h, self.c


torch.manual_seed(0)
lstm = nn.LSTM(3, 6, batch_first=True)
head = nn.Linear(6, 1)
optimizer = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.05)
state = RecurrentState(torch.zeros(1, 2, 6), torch.zeros(1, 2, 6))
snapshots = []
for step in range(3):
    state = state.detached()
    out, (h, c) = lstm(torch.randn(2, 4, 3), state.as_tuple())
    state = RecurrentState(h, c)
    loss = F.mse_loss(head(out), torch.randn(2, 4, 1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    snapshots.append(state.h.detach())
