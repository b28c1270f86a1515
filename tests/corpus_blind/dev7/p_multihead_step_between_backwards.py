# corpus: multi-head image classifier (shared trunk, per-attribute heads) that backpropagates each head's loss with retain_graph and calls optimizer.step() after each one, so later backwards meet trunk weights the step already changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://discuss.pytorch.org/t/how-are-optimizer-step-and-loss-backward-related/7350/14
import argparse

import torch
import torch.nn as nn


class MultiHeadNet(nn.Module):
    def __init__(self, in_dim, hidden, heads):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in heads.items()})

    def forward(self, x):
        feats = self.trunk(x)
        return {name: head(feats) for name, head in self.heads.items()}


class Runner:
    def __init__(self, args):
        self.heads = {"color": 4, "shape": 3}
        self.model = MultiHeadNet(args.in_dim, args.hidden, self.heads)
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)

    def process_batch(self, x, targets):
        outputs = self.model(x)
        losses = {name: self.criterion(outputs[name], targets[name]) for name in self.heads}
        self.optimizer.zero_grad()
        losses["color"].backward(retain_graph=True)
        self.optimizer.step()  # expect: GG111
        losses["shape"].backward()  # also: GG111
        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--in_dim", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    runner = Runner(args)
    for step in range(3):
        x = torch.randn(8, args.in_dim)
        targets = {"color": torch.randint(0, 4, (8,)), "shape": torch.randint(0, 3, (8,))}
        print(runner.process_batch(x, targets))


if __name__ == "__main__":
    main()
