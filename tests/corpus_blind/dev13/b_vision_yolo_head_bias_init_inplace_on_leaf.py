# corpus: YOLOv3-style detector (sparseml model zoo shape): each detection head's initialize_weights() does the "smart bias initialization" by viewing conv.bias as (anchors, -1) and adding objectness/class priors in place, which is an in-place write to a view of a leaf parameter while autograd is recording
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation
# source: https://github.com/neuralmagic/sparseml/pull/94
import math
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Parameter


class ConvBnLeaky(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride, kernel_size // 2, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)
        self.act = nn.LeakyReLU(0.1)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class _YoloDetectionBlock(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, num_anchors: int = 3, stride: int = 8):
        super().__init__()
        self.num_anchors = num_anchors
        self.num_outputs = num_classes + 5
        self.stride = stride
        self.pre = ConvBnLeaky(in_channels, in_channels * 2)
        self.conv = nn.Conv2d(in_channels * 2, num_anchors * self.num_outputs, 1)
        self.initialize_weights()

    def initialize_weights(self):
        # smart bias initialization
        b = self.conv.bias.view(self.num_anchors, -1)
        b[:, 4] += math.log(8 / (640 / self.stride) ** 2)  # expect: GG108
        b[:, 5:] += math.log(0.6 / (self.num_outputs - 5 - 0.99))  # also: GG108
        self.conv.bias = Parameter(b.view(-1), requires_grad=True)

    def forward(self, x):
        out = self.conv(self.pre(x))
        bs, _, ny, nx = out.shape
        return out.view(bs, self.num_anchors, self.num_outputs, ny, nx).permute(0, 1, 3, 4, 2).contiguous()


class YoloV3(nn.Module):
    def __init__(self, num_classes: int = 4, strides: List[int] = (8, 16)):
        super().__init__()
        self.stem = ConvBnLeaky(3, 8, stride=2)
        self.stage1 = ConvBnLeaky(8, 16, stride=2)
        self.stage2 = ConvBnLeaky(16, 32, stride=2)
        self.heads = nn.ModuleList([
            _YoloDetectionBlock(16, num_classes, stride=strides[0]),
            _YoloDetectionBlock(32, num_classes, stride=strides[1]),
        ])

    def forward(self, x):
        f1 = self.stage1(self.stem(x))
        f2 = self.stage2(f1)
        return [self.heads[0](f1), self.heads[1](f2)]


class YoloLoss:
    def __init__(self, obj_weight=1.0, cls_weight=0.5):
        self.obj_weight = obj_weight
        self.cls_weight = cls_weight

    def __call__(self, preds, targets):
        losses = {"obj": 0.0, "cls": 0.0, "box": 0.0}
        for p, t in zip(preds, targets):
            losses["obj"] = losses["obj"] + F.binary_cross_entropy_with_logits(p[..., 4], t[..., 4])
            losses["cls"] = losses["cls"] + F.binary_cross_entropy_with_logits(p[..., 5:], t[..., 5:])
            losses["box"] = losses["box"] + F.mse_loss(p[..., :4].sigmoid(), t[..., :4])
        total = losses["box"] + self.obj_weight * losses["obj"] + self.cls_weight * losses["cls"]
        return total, {k: float(v) for k, v in losses.items()}


def make_targets(preds):
    return [torch.rand_like(p).round() for p in preds]


def train(model, steps=3):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = YoloLoss()
    for step in range(steps):
        images = torch.randn(2, 3, 32, 32)
        preds = model(images)
        loss, parts = criterion(preds, make_targets(preds))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, round(loss.item(), 4), parts)


def main():
    torch.manual_seed(0)
    model = YoloV3(num_classes=4)
    train(model)


if __name__ == "__main__":
    main()
