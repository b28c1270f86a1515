import torch
import torch.nn as nn
import torch.nn.functional as F


class SaliencyNet(nn.Module):
    """Tiny encoder-decoder that outputs a saliency probability map."""

    def __init__(self, ch=8):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.ReLU(inplace=True))
        self.enc2 = nn.Sequential(nn.Conv2d(ch, 2 * ch, 3, stride=2, padding=1), nn.ReLU(inplace=True))
        self.side1 = nn.Conv2d(ch, 1, 1)
        self.side2 = nn.Conv2d(2 * ch, 1, 1)
        self.fuse = nn.Conv2d(2, 1, 1)

    def forward(self, x):
        h, w = x.shape[2:]
        f1 = self.enc1(x)
        f2 = self.enc2(f1)
        s1 = self.side1(f1)
        s2 = F.interpolate(self.side2(f2), size=(h, w), mode="bilinear", align_corners=False)
        return torch.sigmoid(self.fuse(torch.cat([s1, s2], dim=1)))
