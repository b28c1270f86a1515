# corpus: CIFAR-10 CNN lab (train/validate functions driven by an experiment(partition, args) runner); optimizer.zero_grad() is called once per epoch before the batch loop, so every step applies the sum of all gradients of the epoch so far
# source: https://github.com/heartcored98/Standalone-DeepLearning/issues/11
import argparse
import copy
import time

import torch
import torch.nn as nn
import torch.optim as optim


class CNN(nn.Module):
    def __init__(self, model_code, in_channels, out_dim, act, use_bn):
        super().__init__()
        cfg = {"VGG11": [16, "M", 32, "M"], "VGG13": [16, 16, "M", 32, 32, "M"]}[model_code]
        if act == "relu":
            self.act = nn.ReLU()
        else:
            self.act = nn.Tanh()
        layers = []
        for x in cfg:
            if x == "M":
                layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            else:
                layers.append(nn.Conv2d(in_channels, x, kernel_size=3, stride=1, padding=1))
                if use_bn:
                    layers.append(nn.BatchNorm2d(x))
                layers.append(self.act)
                in_channels = x
        self.layers = nn.Sequential(*layers)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, out_dim)

    def forward(self, x):
        x = self.layers(x)
        x = x.view(x.size(0), -1)
        x = self.act(self.fc1(x))
        return self.fc2(x)


def train(net, partition, optimizer, criterion, args):
    trainloader = partition["train"]
    net.train()
    correct = 0
    total = 0
    train_loss = 0.0
    optimizer.zero_grad()
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()  # expect: GG201
        optimizer.step()
        train_loss += loss.item()
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
    train_loss = train_loss / len(trainloader)
    train_acc = 100 * correct / total
    return net, train_loss, train_acc


def validate(net, partition, criterion, args):
    valloader = partition["val"]
    net.eval()
    correct = 0
    total = 0
    val_loss = 0.0
    with torch.no_grad():
        for data in valloader:
            images, labels = data
            outputs = net(images)
            loss = criterion(outputs, labels)
            val_loss += loss.item()
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    return val_loss / len(valloader), 100 * correct / total


def experiment(partition, args):
    net = CNN(model_code=args.model_code, in_channels=args.in_channels, out_dim=args.out_dim, act=args.act, use_bn=args.use_bn)
    criterion = nn.CrossEntropyLoss()
    if args.optim == "SGD":
        optimizer = optim.SGD(net.parameters(), lr=args.lr, weight_decay=args.l2)
    else:
        optimizer = optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.l2)
    train_losses, val_losses = [], []
    for epoch in range(args.epoch):
        ts = time.time()
        net, train_loss, train_acc = train(net, partition, optimizer, criterion, args)
        val_loss, val_acc = validate(net, partition, criterion, args)
        te = time.time()
        train_losses.append(train_loss)
        val_losses.append(val_loss)
        print("Epoch {}, Acc(train/val): {:2.2f}/{:2.2f}, Loss(train/val) {:2.2f}/{:2.2f}. Took {:2.2f} sec".format(
            epoch, train_acc, val_acc, train_loss, val_loss, te - ts))
    return {"train_losses": train_losses, "val_losses": val_losses}


def main():
    parser = argparse.ArgumentParser()
    args = parser.parse_args([])
    args.model_code = "VGG11"
    args.in_channels = 3
    args.out_dim = 10
    args.act = "relu"
    args.use_bn = True
    args.l2 = 0.00001
    args.optim = "SGD"
    args.lr = 0.0015
    args.epoch = 2
    args.train_batch_size = 8
    torch.manual_seed(0)
    make = lambda n: [(torch.randn(args.train_batch_size, 3, 16, 16), torch.randint(0, 10, (args.train_batch_size,))) for _ in range(n)]
    partition = {"train": make(4), "val": make(2), "test": make(2)}
    result = experiment(partition, copy.deepcopy(args))
    print(result)


if __name__ == "__main__":
    main()
