import torch.nn as nn


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, pad=1):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size, padding=pad, bias=True),
            nn.ReLU(),
            nn.BatchNorm2d(out_channels),
        )

    def forward(self, x):
        return self.block(x)


class BallTrackerNet(nn.Module):
    """TrackNet-style encoder/decoder predicting one heatmap per court keypoint."""

    def __init__(self, out_channels=15):
        super().__init__()
        self.conv1 = ConvBlock(3, 8)
        self.pool1 = nn.MaxPool2d(2, 2)
        self.conv2 = ConvBlock(8, 16)
        self.ups1 = nn.Upsample(scale_factor=2)
        self.conv3 = ConvBlock(16, 8)
        self.conv4 = nn.Conv2d(8, out_channels, 3, padding=1)

    def forward(self, x):
        x = self.conv1(x)
        x = self.pool1(x)
        x = self.conv2(x)
        x = self.ups1(x)
        x = self.conv3(x)
        return self.conv4(x)
