# corpus: A YOLOP-style multi-task detector initialises its Detect-head biases by writing in place into a view of the conv bias Parameter outside torch.no_grad(), which recent PyTorch rejects.
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/hustvl/YOLOP/pull/17
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1):
        super(Conv, self).__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.Hardswish()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Detect(nn.Module):
    stride = None

    def __init__(self, nc=1, anchors=(), ch=()):
        super(Detect, self).__init__()
        self.nc = nc
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer("anchors", a)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)

    def forward(self, x):
        out = []
        for i in range(self.nl):
            p = self.m[i](x[i])
            bs, _, ny, nx = p.shape
            out.append(p.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous())
        return out


class SegHead(nn.Module):
    def __init__(self, c1, n_out=2):
        super(SegHead, self).__init__()
        self.conv = Conv(c1, 8, 3)
        self.out = nn.Conv2d(8, n_out, 1)

    def forward(self, x, size):
        y = self.out(self.conv(x))
        return torch.sigmoid(F.interpolate(y, size=size, mode="bilinear", align_corners=False))


def check_anchor_order(m):
    a = m.anchors.prod(-1).view(-1)
    da = a[-1] - a[0]
    ds = m.stride[-1] - m.stride[0]
    if da.sign() != ds.sign():
        m.anchors[:] = m.anchors.flip(0)


class MCnet(nn.Module):
    def __init__(self, nc=1):
        super(MCnet, self).__init__()
        self.model = nn.ModuleList([
            Conv(3, 16, 3, 2),
            Conv(16, 32, 3, 2),
            Conv(32, 64, 3, 2),
            Detect(nc, anchors=[[3, 9, 5, 11, 4, 20], [7, 18, 6, 39, 12, 31]], ch=(32, 64)),
            SegHead(32),
            SegHead(32),
        ])
        self.detector_index = 3
        self.nc = nc

        Detector = self.model[self.detector_index]
        s = 128
        with torch.no_grad():
            detects, _, _ = self.forward(torch.zeros(1, 3, s, s))
            Detector.stride = torch.tensor([s / x.shape[-2] for x in detects])
        Detector.anchors /= Detector.stride.view(-1, 1, 1)
        check_anchor_order(Detector)
        self.stride = Detector.stride
        self._initialize_biases()

    def forward(self, x):
        size = x.shape[2:]
        p1 = self.model[0](x)
        p2 = self.model[1](p1)
        p3 = self.model[2](p2)
        det_out = self.model[self.detector_index]([p2, p3])
        da_seg = self.model[4](p2, size)
        ll_seg = self.model[5](p2, size)
        return det_out, da_seg, ll_seg

    def _initialize_biases(self, cf=None):
        m = self.model[self.detector_index]
        for mi, s in zip(m.m, m.stride):
            b = mi.bias.view(m.na, -1)
            b[:, 4] += math.log(8 / (640 / s) ** 2)  # expect: GG108
            b[:, 5:] += math.log(0.6 / (m.nc - 0.99)) if cf is None else torch.log(cf / cf.sum())
            mi.bias = torch.nn.Parameter(b.view(-1), requires_grad=True)


def multi_task_loss(outputs, da_target, ll_target):
    det_out, da_seg, ll_seg = outputs
    obj_loss = sum(F.binary_cross_entropy_with_logits(p[..., 4], torch.zeros_like(p[..., 4])) for p in det_out)
    da_loss = F.binary_cross_entropy(da_seg, da_target)
    ll_loss = F.binary_cross_entropy(ll_seg, ll_target)
    return {"obj": obj_loss, "da_seg": da_loss, "ll_seg": ll_loss}


def main():
    torch.manual_seed(0)
    model = MCnet(nc=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.937)
    for step in range(3):
        imgs = torch.rand(2, 3, 64, 64)
        da_t = (torch.rand(2, 2, 64, 64) > 0.5).float()
        ll_t = (torch.rand(2, 2, 64, 64) > 0.5).float()
        losses = multi_task_loss(model(imgs), da_t, ll_t)
        total = sum(losses.values())
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        print(step, {k: round(v.item(), 4) for k, v in losses.items()})


if __name__ == "__main__":
    main()
