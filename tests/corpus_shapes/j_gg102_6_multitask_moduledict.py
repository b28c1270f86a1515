# corpus: multi-task model with a shared trunk and ModuleDict heads returns a dict of outputs; the loop backpropagates each task loss separately in a for loop
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG102.md (shape: 6, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskNet(nn.Module):
    def __init__(self, in_dim=6, hidden=8):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({"cls": nn.Linear(hidden, 3), "reg": nn.Linear(hidden, 1)})

    def encode(self, x):
        return self.trunk(x)

    def forward(self, x):
        h = self.encode(x)
        return {name: head(h) for name, head in self.heads.items()}


torch.manual_seed(0)
net = MultiTaskNet()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(5, 6)
targets = {"cls": torch.tensor([0, 1, 2, 1, 0]), "reg": torch.randn(5, 1)}
criteria = {"cls": F.cross_entropy, "reg": F.mse_loss}
for step in range(2):
    out = net(x)
    losses = {k: criteria[k](out[k], targets[k]) for k in out}
    opt.zero_grad()
    for name, loss in losses.items():
        loss.backward()  # expect: GG102
    opt.step()
