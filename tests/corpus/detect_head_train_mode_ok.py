# corpus: correct: the same detection head used in training mode: the in-place box decode is in the eval-only branch, which never runs
import torch
import torch.nn as nn


class Head(nn.Module):
    export = False

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 1)

    def forward(self, x):
        self.training |= self.export
        y = self.conv(x)
        if not self.training:
            y = y.sigmoid()
            y[:, 0:2] = y[:, 0:2] * 2.0 - 0.5
        return y


torch.manual_seed(0)
model = Head().train()
patch = torch.full((1, 3, 4, 4), 0.5, requires_grad=True)
optimizer = torch.optim.Adam([patch], lr=0.01)
for step in range(2):
    loss = model(patch).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
