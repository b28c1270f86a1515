import torch
import torch.nn as nn


class YOLO(nn.Module):
    """Anchor-free single-level head: per cell 4 box distances + class logits."""

    def __init__(self, num_classes=3, ch=8):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, ch, 3, 2, 1), nn.BatchNorm2d(ch), nn.SiLU(),
            nn.Conv2d(ch, 2 * ch, 3, 2, 1), nn.BatchNorm2d(2 * ch), nn.SiLU(),
        )
        self.box_head = nn.Conv2d(2 * ch, 4, 1)
        self.cls_head = nn.Conv2d(2 * ch, num_classes, 1)

    def forward(self, x):
        feat = self.backbone(x)
        return {"Main": (self.cls_head(feat), self.box_head(feat))}
