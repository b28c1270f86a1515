import torch
import torch.nn as nn


class BottleneckBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, 1, 1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, 1, 1)
        self.relu = nn.ReLU()

    def forward(self, x):
        out = self.relu(self.in1(self.conv1(x)))
        return x + self.conv2(out)


class HRNet(nn.Module):
    """Tiny two-resolution HRNet-style image transformer (content image -> stylized image)."""

    def __init__(self, channels=8):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, 1, 1)
        self.high = BottleneckBlock(channels)
        self.down = nn.Conv2d(channels, channels, 3, 2, 1)
        self.low = BottleneckBlock(channels)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.fuse = nn.Conv2d(2 * channels, 3, 3, 1, 1)

    def forward(self, x):
        h = torch.relu(self.stem(x))
        high = self.high(h)
        low = self.up(self.low(self.down(h)))
        return self.fuse(torch.cat([high, low], dim=1))
