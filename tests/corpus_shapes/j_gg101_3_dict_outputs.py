# corpus: model returns a dict holding its loss; the loop backpropagates out["loss"], then autograd.grad on the same dict entry for per-layer grad logging
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG101.md (shape: 3, 6)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 8), nn.Linear(8, 8), nn.Linear(8, 1)])

    def features(self, x):
        for layer in self.layers[:-1]:
            x = torch.tanh(layer(x))
        return x

    def forward(self, x, y=None):
        pred = self.layers[-1](self.features(x))
        out = {"pred": pred}
        if y is not None:
            out["loss"] = F.mse_loss(pred, y)
        return out


torch.manual_seed(0)
model = Regressor()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
batches = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(2)]
log = []
for step, (x, y) in enumerate(batches):
    out = model(x, y)
    opt.zero_grad()
    out["loss"].backward()
    named = dict(model.named_parameters())
    grads = torch.autograd.grad(out["loss"], list(named.values()))  # expect: GG101
    log.append({name: g.norm().item() for name, g in zip(named, grads)})
    opt.step()
print(log)
