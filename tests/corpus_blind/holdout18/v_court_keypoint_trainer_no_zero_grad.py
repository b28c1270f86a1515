# corpus: A tennis-court keypoint heatmap trainer calls loss.backward() and optimizer.step() every batch but never zeroes the gradients, so each step uses the sum of all earlier gradients.
# source: https://github.com/yastrebksv/TennisCourtDetector/issues/7
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(ConvBlock, self).__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=True),
            nn.ReLU(),
            nn.BatchNorm2d(out_channels),
        )

    def forward(self, x):
        return self.block(x)


class BallTrackerNet(nn.Module):
    def __init__(self, out_channels=15):
        super(BallTrackerNet, self).__init__()
        self.conv1 = ConvBlock(3, 16)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = ConvBlock(16, 32)
        self.pool2 = nn.MaxPool2d(2)
        self.conv3 = ConvBlock(32, 32)
        self.ups1 = nn.Upsample(scale_factor=2)
        self.conv4 = ConvBlock(32, 16)
        self.ups2 = nn.Upsample(scale_factor=2)
        self.conv5 = ConvBlock(16, out_channels)

    def forward(self, x):
        x = self.pool1(self.conv1(x))
        x = self.pool2(self.conv2(x))
        x = self.conv3(x)
        x = self.conv4(self.ups1(x))
        x = self.conv5(self.ups2(x))
        return x


class CourtDataset(torch.utils.data.Dataset):
    def __init__(self, n=8, size=32, kps=15):
        self.images = torch.rand(n, 3, size, size)
        self.heatmaps = torch.zeros(n, kps, size, size)
        for i in range(n):
            for k in range(kps):
                y, x = np.random.randint(0, size, 2)
                self.heatmaps[i, k, y, x] = 1.0

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return self.images[idx], self.heatmaps[idx]


def train(model, train_loader, optimizer, criterion, device, epoch, max_iters=1000):
    model.train()
    losses = []
    max_iters = min(max_iters, len(train_loader))

    for iter_id, batch in enumerate(train_loader):
        out = model(batch[0].float().to(device))
        gt_hm_hp = batch[1].float().to(device)
        loss = criterion(F.sigmoid(out), gt_hm_hp)

        loss.backward()  # expect: GG201
        optimizer.step()
        print("train, epoch = {}, iter_id = {}/{}, loss = {}".format(epoch, iter_id, max_iters, loss.item()))
        losses.append(loss.item())
        if iter_id > max_iters:
            break

    return np.mean(losses)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--num_epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-5)
    parser.add_argument("--steps_per_epoch", type=int, default=1000)
    args = parser.parse_args([])

    torch.manual_seed(0)
    np.random.seed(0)
    train_loader = torch.utils.data.DataLoader(CourtDataset(), batch_size=args.batch_size, shuffle=True)
    model = BallTrackerNet(out_channels=15)
    device = "cpu"
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), args.lr, betas=(0.9, 0.999), weight_decay=0)
    for epoch in range(args.num_epochs):
        train_loss = train(model, train_loader, optimizer, criterion, device, epoch, args.steps_per_epoch)
        print("epoch {} mean loss {:.5f}".format(epoch, train_loss))


if __name__ == "__main__":
    main()
