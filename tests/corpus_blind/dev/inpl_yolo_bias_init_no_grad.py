# corpus: YOLO-style Detect head initialises biases through a .view() of conv.bias inside torch.no_grad(), then trains normally (correct)
# source: https://github.com/xhwNobody/yolov5_prune_sfp/issues/17
import math

import torch
import torch.nn as nn


class Detect(nn.Module):
    def __init__(self, nc=2, na=3, ch=(8, 16)):
        super().__init__()
        self.nc, self.na, self.no = nc, na, nc + 5
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in ch)
        self.stride = (8, 16)

    def forward(self, feats):
        return [conv(f).flatten(2) for conv, f in zip(self.m, feats)]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.down = nn.Conv2d(8, 16, 3, 2, 1)
        self.detect = Detect()
        self._initialize_biases()

    def _initialize_biases(self, cf=None):
        m = self.detect
        for mi, s in zip(m.m, m.stride):
            b = mi.bias.view(m.na, -1)
            with torch.no_grad():
                b[:, 4] += math.log(8 / (640 / s) ** 2)
                b[:, 5:] += math.log(0.6 / (m.nc - 0.99)) if cf is None else torch.log(cf / cf.sum())

    def forward(self, x):
        p3 = torch.relu(self.stem(x))
        p4 = torch.relu(self.down(p3))
        return self.detect([p3, p4])


def compute_loss(preds, targets):
    return sum(nn.functional.binary_cross_entropy_with_logits(p, t) for p, t in zip(preds, targets))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(2, 3, 16, 16)
    preds = model(x)
    targets = [torch.rand_like(p) for p in preds]
    opt.zero_grad()
    compute_loss(preds, targets).backward()
    opt.step()
    # ground truth: biases are still leaves, the objectness prior was written, and all parameters got gradients
    assert all(mi.bias.is_leaf for mi in model.detect.m)
    assert model.detect.m[0].bias.view(3, -1)[:, 4].max() < -5.0
    assert all(p.grad is not None for p in model.parameters())
