# corpus: weight-normalised CNN with a custom mean-only batch-norm layer; forward assigns `self.running_mean = (1 - m) * self.running_mean + m * batch_mean` from the graph-carrying activations, so the buffer chains every training step's graph together and nothing is ever freed (silent leak; the buffer's grad_fn chain grows each step)
# source: https://github.com/pytorch/pytorch/issues/20275
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class MeanOnlyBatchNorm(nn.Module):
    def __init__(self, module, momentum=0.1):
        super(MeanOnlyBatchNorm, self).__init__()
        if isinstance(module, nn.Linear):
            self.num_features = module.out_features
        else:
            self.num_features = module.out_channels
        self.momentum = momentum
        self.weight = nn.Parameter(torch.Tensor(self.num_features))
        self.bias = nn.Parameter(torch.Tensor(self.num_features))
        self.register_buffer('running_mean', torch.zeros(self.num_features))
        self.reset_parameters()

    def reset_running_stats(self):
        self.running_mean.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        nn.init.ones_(self.weight)
        nn.init.zeros_(self.bias)

    def forward(self, x):
        dims = [0] + list(range(2, x.dim()))
        if self.training:
            avg = x.mean(dim=dims)
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * avg  # expect: GG301
        else:
            avg = self.running_mean
        shape = [1, -1] + [1] * (x.dim() - 2)
        return (x - avg.view(shape)) * self.weight.view(shape) + self.bias.view(shape)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.utils.parametrizations.weight_norm(nn.Conv2d(1, 8, 3, padding=1))
        self.bn1 = MeanOnlyBatchNorm(self.conv1)
        self.conv2 = nn.utils.parametrizations.weight_norm(nn.Conv2d(8, 8, 3, padding=1))
        self.bn2 = MeanOnlyBatchNorm(self.conv2)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(x.mean(dim=(2, 3)))


def graph_depth(t, limit=10000):
    depth, fn = 0, t.grad_fn
    while fn is not None and depth < limit:
        nexts = [f for f, _ in fn.next_functions if f is not None]
        fn = nexts[0] if nexts else None
        depth += 1
    return depth


def train(model, optimizer, batches, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(batches):
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
    print('epoch', epoch, 'loss %.4f' % loss.item(),
          'running_mean graph depth', graph_depth(model.bn1.running_mean))


def test(model, batches):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in batches:
            correct += (model(data).argmax(1) == target).sum().item()
    return correct


def main():
    batches = [(torch.randn(8, 1, 12, 12), torch.randint(0, 10, (8,))) for _ in range(5)]
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    for epoch in range(1, 4):
        train(model, optimizer, batches, epoch)
    print('test correct', test(model, batches))


if __name__ == "__main__":
    main()
