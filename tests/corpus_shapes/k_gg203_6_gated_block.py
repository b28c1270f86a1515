# corpus: nn.Module whose forward calls a _gate() helper that clamps a sigmoid output through .data; sigmoid's backward reads the clamped values and the gradient is silently wrong
# source: docs/rules/GG203.md (shape: 6)
import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedBlock(nn.Module):
    def __init__(self, dim: int, lo: float = 0.2, hi: float = 0.8) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(dim, dim)
        self.value_proj = nn.Linear(dim, dim)
        self.lo, self.hi = lo, hi

    def _gate(self, x):
        gate = torch.sigmoid(self.gate_proj(x))
        gate.data.clamp_(self.lo, self.hi)  # expect: GG203
        return gate

    def forward(self, x):
        return self._gate(x) * self.value_proj(x) + x


class GatedNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.Sequential(GatedBlock(4), GatedBlock(4))
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(self.blocks(x))


def main():
    torch.manual_seed(0)
    model = GatedNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(8, 4) * 3, torch.randn(8, 1)
    for step in range(2):
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model, x, y


if __name__ == "__main__":
    main()
