# corpus: a CIFAR ResNet builds each stage with nn.Sequential(*layers) from a list filled in a loop; its block adds the shortcut in place to the output relu saved for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, planes):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, 3, padding=1)

    def forward(self, x):
        out = F.relu(self.conv(x))
        out += x  # expect: GG107
        return out


class Net(nn.Module):
    def __init__(self, block, planes, blocks):
        super().__init__()
        self.stem = nn.Conv2d(3, planes, 3, padding=1)
        layers = []
        for _ in range(blocks):
            layers.append(block(planes))
        self.stage = nn.Sequential(*layers)
        self.head = nn.Linear(planes, 10)

    def forward(self, x):
        out = self.stage(self.stem(x))
        return self.head(out.mean(dim=(2, 3)))


torch.manual_seed(0)
net = Net(Block, 8, 2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(2):
    loss = F.cross_entropy(net(torch.randn(4, 3, 8, 8)), torch.randint(0, 10, (4,)))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
