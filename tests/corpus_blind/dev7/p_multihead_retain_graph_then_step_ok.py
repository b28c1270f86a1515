# corpus: network with several heads branching from a common body; each head's loss is backpropagated with retain_graph=True on the earlier ones, and one optimizer.step() follows the last backward (correct)
# source: https://discuss.pytorch.org/t/training-a-network-with-multiple-heads/50679
import argparse

import torch
import torch.nn as nn


class MultiHeadModel(nn.Module):
    def __init__(self, in_dim=20, hidden=32, n_classes=5):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head1 = nn.Linear(hidden, n_classes)
        self.head2 = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h = self.body(x)
        return self.head1(h), self.head2(h)


def train_epoch(model, optimizer, loss_fn, batches):
    model.train()
    for input, labels in batches:
        optimizer.zero_grad()
        o1, o2 = model(input)
        l1 = loss_fn(o1, labels)
        l1.backward(retain_graph=True)
        l2 = loss_fn(o2, labels)
        l2.backward()
        optimizer.step()
        print(round(l1.item(), 4), round(l2.item(), 4))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = MultiHeadModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    batches = [(torch.randn(8, 20), torch.randint(0, 5, (8,))) for _ in range(3)]
    train_epoch(model, optimizer, nn.CrossEntropyLoss(), batches)


if __name__ == "__main__":
    main()
