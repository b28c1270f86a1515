# corpus: per-sample training function that calls loss.backward() and optimizer.step() for every sample but never zeroes the gradients, so each step uses the sum of all past gradients
# source: https://python-decompiler.com/article/2017-12/why-do-we-need-to-call-zero-grad-in-pytorch
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
np.random.seed(0)

losses_per_epoch = []


class LinearModel(nn.Module):
    def __init__(self, in_dim=4, out_dim=3):
        super(LinearModel, self).__init__()
        self.W = nn.Parameter(torch.randn(in_dim, out_dim) * 0.1)
        self.b = nn.Parameter(torch.zeros(out_dim))

    def forward(self, x):
        return torch.matmul(x, self.W) + self.b


def make_data(n=30):
    data = torch.randn(n, 4)
    true_W = torch.randn(4, 3)
    targets = data @ true_W + 0.05 * torch.randn(n, 3)
    return data, targets


def train_one_epoch(model, data, targets, optimizer):
    total = 0.0
    for sample, target in zip(data, targets):  # expect: GG201
        output = model(sample)
        loss = ((output - target) ** 2).sum()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(data)


def main():
    data, targets = make_data()
    model = LinearModel()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(3):
        losses_per_epoch.append(train_one_epoch(model, data, targets, optimizer))
        print("epoch", epoch, "mean loss", losses_per_epoch[-1])


if __name__ == "__main__":
    main()
