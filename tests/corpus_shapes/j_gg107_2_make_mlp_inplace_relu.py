# corpus: make_mlp() builds its nn.Sequential from a layer list in which ReLU(inplace=True) follows Tanh, overwriting the output Tanh saved for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG107.md (shape: 2)
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_mlp(in_dim, hidden, out_dim):
    layers = [
        nn.Linear(in_dim, hidden),
        nn.Tanh(),
        nn.ReLU(inplace=True),  # expect: GG107
        nn.Linear(hidden, out_dim),
    ]
    return nn.Sequential(*layers)


def compute_loss(model, x, y):
    return F.mse_loss(model(x), y)


def train_one_epoch(model, opt, data):
    for x, y in data:
        loss = compute_loss(model, x, y)
        opt.zero_grad()
        loss.backward()  # also: GG107
        opt.step()


def main():
    torch.manual_seed(0)
    model = make_mlp(4, 8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_one_epoch(model, opt, [(torch.randn(2, 4), torch.randn(2, 1)) for _ in range(2)])


if __name__ == "__main__":
    main()
