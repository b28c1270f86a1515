# corpus: YOLO-style detector builds its Detect head and initializes objectness/class biases through a view of the bias Parameter with += outside torch.no_grad()
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/WongKinYiu/ScaledYOLOv4/issues/191
import math
import torch
import torch.nn as nn


class Detect(nn.Module):
    def __init__(self, n_classes=3, anchors_per_level=3, channels=(16, 32)):
        super().__init__()
        self.nc = n_classes
        self.no = n_classes + 5
        self.na = anchors_per_level
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in channels)
        self.stride = torch.tensor([8.0, 16.0])

    def forward(self, feats):
        outs = []
        for conv, f in zip(self.m, feats):
            bs, _, ny, nx = f.shape
            outs.append(conv(f).view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2))
        return outs


class TinyYolo(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.SiLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU(),
                                  nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU())
        self.down = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.SiLU())
        self.detect = Detect(n_classes)
        self._initialize_biases()

    def _initialize_biases(self, cf=None):
        m = self.detect
        for mi, s in zip(m.m, m.stride):
            b = mi.bias.view(m.na, -1)
            b[:, 4] += math.log(8 / (640 / s) ** 2)  # expect: GG108
            b[:, 5:] += math.log(0.6 / (m.nc - 0.99)) if cf is None else torch.log(cf / cf.sum())  # also: GG108

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.down(p3)
        return self.detect([p3, p4])


def compute_loss(preds, n_classes=3):
    obj_loss = sum(nn.functional.binary_cross_entropy_with_logits(p[..., 4], torch.zeros_like(p[..., 4])) for p in preds)
    cls_loss = sum(p[..., 5:].pow(2).mean() for p in preds)
    return {"obj": obj_loss, "cls": cls_loss}


def main():
    torch.manual_seed(0)
    model = TinyYolo()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937)
    for step in range(2):
        losses = compute_loss(model(torch.randn(2, 3, 64, 64)))
        total = sum(losses.values())
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        print(step, total.item())


if __name__ == "__main__":
    main()
