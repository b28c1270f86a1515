# corpus: correct: the scale is an @property of an nn.Module, so every access inside the loop rebuilds log_scale.exp() from the current parameter
# source: docs/rules/GG103.md (shape: 6, 1)
import torch
import torch.nn as nn


class ScaledModel(nn.Module):
    def __init__(self, dim=3):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(dim))

    @property
    def scale(self):
        return self.log_scale.exp()

    def forward(self, x):
        return x * self.scale


torch.manual_seed(0)
model = ScaledModel()
opt = torch.optim.Adam(model.parameters(), lr=0.1)
data = torch.randn(10, 3)
scale = model.scale.detach()
for step in range(5):
    opt.zero_grad()
    loss = ((model(data) - 1.0) ** 2).mean()
    loss.backward()
    opt.step()
print(scale, model.scale)
