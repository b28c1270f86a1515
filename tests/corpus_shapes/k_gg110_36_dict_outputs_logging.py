# corpus: multi-head model with a ModuleDict returns a dict of outputs; the per-loss log is built by a dict comprehension calling .numpy() on graph-carrying losses
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad.
# source: docs/rules/GG110.md (shape: 3, 6)
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 16), nn.ReLU())
        self.heads = nn.ModuleDict({"logits": nn.Linear(16, 3), "value": nn.Linear(16, 1)})

    def forward(self, x):
        h = self.trunk(x)
        return {name: head(h) for name, head in self.heads.items()}


def compute_losses(out, labels, targets):
    return {
        "ce": F.cross_entropy(out["logits"], labels),
        "mse": F.mse_loss(out["value"], targets),
    }


def main():
    torch.manual_seed(0)
    model = MultiHeadNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = [(torch.randn(8, 4), torch.randint(0, 3, (8,)), torch.randn(8, 1)) for _ in range(3)]
    log = []
    for step, (x, labels, targets) in enumerate(data):
        out = model(x)
        losses = compute_losses(out, labels, targets)
        total = sum(losses.values())
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        log.append({name: value.numpy() for name, value in losses.items()})  # expect: GG110
    return log


if __name__ == "__main__":
    main()
