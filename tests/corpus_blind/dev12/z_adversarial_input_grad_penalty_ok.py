# corpus: input-gradient penalty (double backprop for robustness) on a PreAct-ResNet classifier, written as in the report: autograd.grad of the classification loss w.r.t. the input with create_graph=True, the squared gradient added to the loss, one backward and one SGD step per batch after zero_grad
# source: https://github.com/pytorch/pytorch/issues/7714
import random
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import autograd, nn

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


class PreActBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super(PreActBlock, self).__init__()
        self.bn1 = nn.BatchNorm2d(in_planes)
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False))

    def forward(self, x):
        out = F.relu(self.bn1(x))
        shortcut = self.shortcut(out) if hasattr(self, 'shortcut') else x
        out = self.conv1(out)
        out = self.conv2(F.relu(self.bn2(out)))
        out += shortcut
        return out


class PreActResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=10):
        super(PreActResNet, self).__init__()
        self.in_planes = 8
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.layer1 = self._make_layer(block, 8, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 16, num_blocks[1], stride=2)
        self.linear = nn.Linear(16 * block.expansion, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = self.conv1(x)
        out = self.layer1(out)
        out = self.layer2(out)
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.linear(out)


def PreActResNet18():
    return PreActResNet(PreActBlock, [1, 1])


def main():
    net = PreActResNet18()
    opt = torch.optim.SGD(net.parameters(), 0.01, momentum=0.9, weight_decay=1e-4)
    batchsize = 8
    GP = True
    start = time.time()
    for i in range(4):
        x = torch.rand((batchsize, 3, 8, 8))
        y = torch.randint(0, 10, (batchsize,))
        x.requires_grad_(True)
        opt.zero_grad()
        preds = net(x)
        loss_c = nn.CrossEntropyLoss()(preds, y)
        if GP:
            grad = autograd.grad(loss_c, x, create_graph=True, retain_graph=True, only_inputs=True)[0]
            loss_g = (grad ** 2).mean() * batchsize
            (loss_c + loss_g).backward()
        else:
            loss_c.backward()
        opt.step()
    end = time.time()
    print("{:.3f}s for each step".format((end - start) / 4))


if __name__ == "__main__":
    main()
