# corpus: YOLO-style Detect head initialises objectness/class biases through a .view() of conv.bias with `+=` while grad mode is on
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/xhwNobody/yolov5_prune_sfp/issues/17
import math

import torch
import torch.nn as nn


class Detect(nn.Module):
    def __init__(self, nc=3, anchors=((10, 13, 16, 30), (30, 61, 62, 45)), ch=(8, 16)):
        super().__init__()
        self.nc = nc
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)
        self.stride = torch.tensor([8.0, 16.0])

    def forward(self, xs):
        out = []
        for i in range(self.nl):
            bs, _, ny, nx = xs[i].shape
            out.append(self.m[i](xs[i]).view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2))
        return out


class Model(nn.Module):
    def __init__(self, nc=3):
        super().__init__()
        self.backbone = nn.ModuleList([nn.Conv2d(3, 8, 3, 2, 1), nn.Conv2d(8, 16, 3, 2, 1)])
        self.detect = Detect(nc=nc)
        self._initialize_biases()  # also: GG108

    def _initialize_biases(self, cf=None):
        m = self.detect
        for mi, s in zip(m.m, m.stride):
            b = mi.bias.view(m.na, -1)
            b[:, 4] += math.log(8 / (640 / s) ** 2)  # expect: GG108
            b[:, 5:] += math.log(0.6 / (m.nc - 0.99)) if cf is None else torch.log(cf / cf.sum())  # also: GG108

    def forward(self, x):
        feats = []
        for conv in self.backbone:
            x = torch.relu(conv(x))
            feats.append(x)
        return self.detect(feats)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model()
    preds = model(torch.randn(1, 3, 16, 16))
    sum(p.sum() for p in preds).backward()
