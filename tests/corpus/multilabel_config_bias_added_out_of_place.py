# corpus: the same config-driven logit adjustment, written out of place, so the Sigmoid's saved output is left alone
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
            scores = scores + self.logit_reg["neg_bias"]
        return F.binary_cross_entropy_with_logits(scores, labels)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 4), nn.Sigmoid())
criterion = AdjustedBCE(LossConfig())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    x, y = torch.randn(8, 10), (torch.rand(8, 4) < 0.3).float()
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
