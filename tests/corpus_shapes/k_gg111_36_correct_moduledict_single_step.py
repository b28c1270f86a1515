# corpus: correct: ModuleDict multi-head model returning a dict; every task loss is backpropagated (retain_graph for all but the last) and the optimizer steps once after the loop
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
for step in range(3):
    x = torch.randn(10, 6)
    targets = {"depth": torch.randn(10, 1), "seg": torch.randint(0, 4, (10,))}
    out = model(x)
    losses = {name: criteria[name](out[name], targets[name]) for name in out}
    names = list(losses)
    optimizer.zero_grad()
    for i, name in enumerate(names):
        losses[name].backward(retain_graph=i < len(names) - 1)
    optimizer.step()
