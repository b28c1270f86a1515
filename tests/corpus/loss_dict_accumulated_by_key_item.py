# corpus: a model returns a dict of loss tensors; the epoch loop sums each entry as a Python number by iterating over its keys (correct)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, x, y):
        pred = self.net(x).squeeze(1)
        losses = {"mse": F.mse_loss(pred, y), "l1": F.l1_loss(pred, y)}
        losses["total"] = losses["mse"] + 0.1 * losses["l1"]
        return losses


def train_epoch(model, optimizer, batches):
    totals = {"mse": 0.0, "l1": 0.0, "total": 0.0}
    for x, y in batches:
        losses = model(x, y)
        optimizer.zero_grad()
        losses["total"].backward()
        optimizer.step()
        for key in losses:
            totals[key] += losses[key].item()
    return totals


torch.manual_seed(0)
model = Regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
totals = train_epoch(model, optimizer, [(torch.randn(6, 4), torch.randn(6)) for _ in range(3)])
assert all(isinstance(v, float) for v in totals.values())
