# corpus: correlation-based link/target predictor trainer (salesforce corr_based_prediction main.py shape) that calls optimizer.zero_grad() once per epoch outside the training-stage batch loop, so every batch's step uses the gradients of all previous batches of the epoch summed in
# source: https://github.com/salesforce/corr_based_prediction/issues/1
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class CorrPredictor(nn.Module):
    """MLP base predictor whose outputs are refined by label correlation with neighbours."""

    def __init__(self, in_dim, hidden, n_classes, alpha=0.5):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, n_classes))
        self.alpha = alpha

    def forward(self, x, adj):
        base = self.mlp(x)
        return (1 - self.alpha) * base + self.alpha * adj @ base


def normalize_adj(adj):
    deg = adj.sum(1, keepdim=True).clamp(min=1)
    return adj / deg


def make_data(n=60, in_dim=8, n_classes=3):
    x = torch.randn(n, in_dim)
    y = torch.randint(0, n_classes, (n,))
    adj = normalize_adj((torch.rand(n, n) < 0.1).float())
    return x, y, adj


def batches(n, batch_size):
    return torch.randperm(n).split(batch_size)


def train(model, optimizer, x, y, adj, batch_size=20):
    model.train()
    optimizer.zero_grad()  # also: GG201
    total = 0.0
    for idx in batches(len(y), batch_size):
        out = model(x, adj)[idx]
        loss = F.cross_entropy(out, y[idx])
        loss.backward()  # expect: GG201
        optimizer.step()
        total += loss.item() * len(idx)
    return total / len(y)


@torch.no_grad()
def evaluate(model, x, y, adj):
    model.eval()
    return (model(x, adj).argmax(1) == y).float().mean().item()


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    x, y, adj = make_data()
    model = CorrPredictor(x.size(1), 32, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        loss = train(model, optimizer, x, y, adj)
        print(f"epoch {epoch} loss {loss:.4f} acc {evaluate(model, x, y, adj):.3f}")


if __name__ == "__main__":
    main()
