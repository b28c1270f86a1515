import torch
import torch.nn as nn


class UNet(nn.Module):
    def __init__(self, in_channels=3, out_channels=3, base=8):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(in_channels, base, 3, 2, 1), nn.ReLU(inplace=True))
        self.mid = nn.Sequential(nn.Conv2d(base, base, 3, 1, 1), nn.ReLU(inplace=True))
        self.up = nn.ConvTranspose2d(base * 2, base, 4, 2, 1)
        self.out = nn.Conv2d(base + in_channels, out_channels, 3, 1, 1)

    def forward(self, x):
        d = self.down(x)
        m = self.mid(d)
        u = self.up(torch.cat([d, m], dim=1))
        return torch.sigmoid(self.out(torch.cat([u, x], dim=1)))


class Discriminator(nn.Module):
    def __init__(self, in_channels=3, use_sigmoid=True):
        super().__init__()
        self.use_sigmoid = use_sigmoid
        self.conv1 = nn.Sequential(nn.Conv2d(in_channels, 8, 4, 2, 1), nn.LeakyReLU(0.2, inplace=True))
        self.conv2 = nn.Sequential(nn.Conv2d(8, 16, 4, 2, 1), nn.LeakyReLU(0.2, inplace=True))
        self.conv3 = nn.Conv2d(16, 1, 3, 1, 1)

    def forward(self, x):
        conv1 = self.conv1(x)
        conv2 = self.conv2(conv1)
        conv3 = self.conv3(conv2)
        outputs = torch.sigmoid(conv3) if self.use_sigmoid else conv3
        return outputs, [conv1, conv2, conv3]
