# corpus: Complement Objective Training classifier: primary cross-entropy backward + step, then a fresh forward pass for the complement-entropy loss with its own backward + step (correct)
# source: https://github.com/henry8527/COT/issues/6
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ComplementEntropy(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.classes = classes

    def forward(self, yHat, y):
        batch_size = len(y)
        yHat = F.softmax(yHat, dim=1)
        Yg = torch.gather(yHat, 1, torch.unsqueeze(y, 1))
        Yg_ = (1 - Yg) + 1e-7
        Px = yHat / Yg_.view(len(yHat), 1)
        Px_log = torch.log(Px + 1e-10)
        y_zerohot = torch.ones(batch_size, self.classes).scatter_(1, y.view(batch_size, 1).data.cpu(), 0)
        output = Px * Px_log * y_zerohot
        loss = torch.sum(output)
        loss /= float(batch_size)
        loss /= float(self.classes)
        return loss


def train(epoch, net, trainloader, criterion, complement_criterion, optimizer, complement_optimizer):
    net.train()
    train_loss = 0
    correct = 0
    total = 0
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        # Baseline implementation
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        train_loss += loss.item()

        # COT implementation
        outputs = net(inputs)
        loss = complement_criterion(outputs, targets)
        complement_optimizer.zero_grad()
        loss.backward()
        complement_optimizer.step()

        _, predicted = outputs.max(1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
    print(epoch, train_loss / (batch_idx + 1), correct / total)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--classes", type=int, default=10)
    args = parser.parse_args([])
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                        nn.Linear(8, args.classes))
    criterion = nn.CrossEntropyLoss()
    complement_criterion = ComplementEntropy(args.classes)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    complement_optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    trainloader = [(torch.randn(8, 3, 8, 8), torch.randint(0, args.classes, (8,))) for _ in range(3)]
    for epoch in range(2):
        train(epoch, net, trainloader, criterion, complement_criterion, optimizer, complement_optimizer)


if __name__ == "__main__":
    main()
