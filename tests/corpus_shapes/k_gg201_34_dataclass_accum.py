# corpus: gradient accumulation over dataclass micro-batches with enumerate; zero_grad() runs every micro-batch while step() runs every 4th, so each step sees only the last micro-batch's gradient (silent)
# source: docs/rules/GG201.md (shape: 3, 4)
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class MicroBatch:
    x: torch.Tensor
    y: torch.Tensor


@dataclass
class TrainConfig:
    accum_steps: int = 4
    lr: float = 0.1


torch.manual_seed(0)
cfg = TrainConfig()
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
micro_batches = [MicroBatch(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(8)]
grads_at_step = []
for i, mb in enumerate(micro_batches):
    optimizer.zero_grad()  # expect: GG201
    loss = F.mse_loss(model(mb.x), mb.y) / cfg.accum_steps
    loss.backward()
    if (i + 1) % cfg.accum_steps == 0:
        grads_at_step.append(model.weight.grad.clone())
        optimizer.step()  # also: GG201
