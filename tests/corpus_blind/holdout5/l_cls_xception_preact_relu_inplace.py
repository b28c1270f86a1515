# corpus: imgclsmob-style Xception image classifier; the pre-activation nn.ReLU(inplace=True) of the first separable conv overwrites the unit input that the 1x1 identity conv saved for its backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/osmr/imgclsmob/issues/13
import argparse

import torch
import torch.nn as nn


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, activation=True):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)
        self.activate = activation
        if self.activate:
            self.activ = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.bn(self.conv(x))
        if self.activate:
            x = self.activ(x)
        return x


def conv1x1_block(in_channels, out_channels, stride=1, activation=True):
    return ConvBlock(in_channels, out_channels, 1, stride, 0, activation)


class DwsConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.dw_conv = nn.Conv2d(in_channels, in_channels, 3, 1, 1, groups=in_channels, bias=False)
        self.pw_conv = nn.Conv2d(in_channels, out_channels, 1, bias=False)

    def forward(self, x):
        return self.pw_conv(self.dw_conv(x))


class DwsConvBlock(nn.Module):
    """Pre-activation depthwise separable block: ReLU -> dws conv -> BN."""

    def __init__(self, in_channels, out_channels, activate):
        super().__init__()
        self.activate = activate
        if self.activate:
            self.activ = nn.ReLU(inplace=True)  # expect: GG107
        self.conv = DwsConv(in_channels, out_channels)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        if self.activate:
            x = self.activ(x)  # also: GG107
        x = self.conv(x)
        x = self.bn(x)
        return x


class XceptionUnit(nn.Module):
    def __init__(self, in_channels, out_channels, stride, reps, start_with_relu=True, grow_first=True):
        super().__init__()
        self.resize_identity = (in_channels != out_channels) or (stride != 1)
        if self.resize_identity:
            self.identity_conv = conv1x1_block(in_channels, out_channels, stride=stride, activation=False)
        self.body = nn.Sequential()
        for i in range(reps):
            if (grow_first and (i == 0)) or ((not grow_first) and (i == reps - 1)):
                in_channels_i, out_channels_i = in_channels, out_channels
            elif grow_first:
                in_channels_i, out_channels_i = out_channels, out_channels
            else:
                in_channels_i, out_channels_i = in_channels, in_channels
            activate = start_with_relu if (i == 0) else True
            self.body.add_module("block{}".format(i + 1), DwsConvBlock(in_channels_i, out_channels_i, activate))
        if stride != 1:
            self.body.add_module("pool", nn.MaxPool2d(kernel_size=3, stride=stride, padding=1))

    def forward(self, x):
        if self.resize_identity:
            identity = self.identity_conv(x)
        else:
            identity = x
        x = self.body(x)
        x = x + identity
        return x


class XceptionInitBlock(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.conv1 = ConvBlock(in_channels, 8, 3, 2, 1)
        self.conv2 = ConvBlock(8, 16, 3, 1, 1)

    def forward(self, x):
        return self.conv2(self.conv1(x))


class Xception(nn.Module):
    def __init__(self, channels, in_channels=3, num_classes=10):
        super().__init__()
        self.features = nn.Sequential()
        self.features.add_module("init_block", XceptionInitBlock(in_channels))
        in_channels = 16
        for i, channels_per_stage in enumerate(channels):
            for j, out_channels in enumerate(channels_per_stage):
                self.features.add_module(
                    "unit{}_{}".format(i + 1, j + 1),
                    XceptionUnit(in_channels, out_channels, stride=(2 if j == 0 else 1), reps=2,
                                 start_with_relu=(i != 0 or j != 0), grow_first=True))
                in_channels = out_channels
        self.features.add_module("final_pool", nn.AdaptiveAvgPool2d(1))
        self.output = nn.Linear(in_channels, num_classes)

    def forward(self, x):
        x = self.features(x)
        return self.output(x.flatten(1))


def train(train_loader, model, criterion, optimizer, epoch):
    model.train()
    for i, (images, target) in enumerate(train_loader):
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()  # also: GG107
        optimizer.step()
        print("epoch %d iter %d loss %.4f" % (epoch, i, loss.item()))


def main():
    parser = argparse.ArgumentParser(description="Xception training")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = Xception(channels=[[24], [32]])
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    train_loader = [(torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,))) for _ in range(2)]
    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch)


if __name__ == "__main__":
    main()
