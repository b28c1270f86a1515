# corpus: a multi-label loss reads its logit adjustment from a dataclass config (dict fields built by default_factory) and shifts the scores in place; the model's head ends in a Sigmoid, which saved its output for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class LossConfig:
    logit_reg: dict = field(default_factory=lambda: dict(neg_bias=0.05, neg_scale=2.0))


class AdjustedBCE(nn.Module):
    def __init__(self, cfg: LossConfig) -> None:
        super().__init__()
        self.logit_reg = cfg.logit_reg

    def forward(self, scores, labels):
        if not self.logit_reg:
            return F.binary_cross_entropy(scores, labels)
        if "neg_bias" in self.logit_reg:
            scores += self.logit_reg["neg_bias"]  # expect: GG107
        return F.binary_cross_entropy_with_logits(scores, labels)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 4), nn.Sigmoid())
criterion = AdjustedBCE(LossConfig())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    x, y = torch.randn(8, 10), (torch.rand(8, 4) < 0.3).float()
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()  # also: GG107
    optimizer.step()
