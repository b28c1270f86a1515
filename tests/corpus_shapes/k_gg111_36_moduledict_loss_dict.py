# corpus: ModuleDict multi-head model returning a dict; task losses built by a dict comprehension; the depth loss is backpropagated with retain_graph, the optimizer steps, then the seg loss is backpropagated
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG111.md (shape: 3, 6)
import torch
import torch.nn as nn
import torch.nn.functional as F


class SharedEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(6, 12), nn.Linear(12, 12)])
        self.heads = nn.ModuleDict({"depth": nn.Linear(12, 1), "seg": nn.Linear(12, 4)})

    def encode(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x

    def forward(self, x):
        h = self.encode(x)
        return {name: head(h) for name, head in self.heads.items()}


criteria = {
    "depth": F.l1_loss,
    "seg": F.cross_entropy,
}

torch.manual_seed(0)
model = SharedEncoder()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x = torch.randn(10, 6)
targets = {"depth": torch.randn(10, 1), "seg": torch.randint(0, 4, (10,))}
out = model(x)
losses = {name: criteria[name](out[name], targets[name]) for name in out}
optimizer.zero_grad()
losses["depth"].backward(retain_graph=True)
optimizer.step()  # expect: GG111
losses["seg"].backward()  # also: GG111
optimizer.step()
