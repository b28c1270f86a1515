# corpus: correct: residual blocks in a ModuleList add the identity in place to a BatchNorm output (BN saves its input, not its output), and the activations list is stacked out of place
# source: docs/rules/GG107.md (shape: 6, 3)
import torch
import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.bn = nn.BatchNorm1d(dim)

    def forward(self, x):
        identity = x
        out = self.bn(self.fc(x))
        out += identity
        return torch.relu(out)


class ResNet(nn.Module):
    def __init__(self, dim=4, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([ResBlock(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        acts = []
        for block in self.blocks:
            x = block(x)
            acts.append(x)
        return self.head(x), torch.stack(acts)


torch.manual_seed(0)
model = ResNet()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    pred, acts = model(torch.randn(3, 4))
    loss = pred.pow(2).mean() + 1e-3 * acts.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
