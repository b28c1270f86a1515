import torch
import torch.nn as nn


class Detect(nn.Module):
    stride = None  # strides computed during build
    export = False  # onnx export

    def __init__(self, nc=2, anchors=(), ch=()):
        super().__init__()
        self.nc = nc  # number of classes
        self.no = nc + 5  # number of outputs per anchor
        self.nl = len(anchors)  # number of detection layers
        self.na = len(anchors[0]) // 2  # number of anchors
        self.grid = [torch.zeros(1)] * self.nl  # init grid
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer("anchors", a)  # shape(nl,na,2)
        self.register_buffer("anchor_grid", a.clone().view(self.nl, 1, -1, 1, 1, 2))  # shape(nl,1,na,1,1,2)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)  # output conv

    def forward(self, x):
        z = []  # inference output
        self.training |= self.export
        for i in range(self.nl):
            x[i] = self.m[i](x[i])  # conv
            bs, _, ny, nx = x[i].shape  # x(bs,21,ny,nx) to x(bs,3,ny,nx,7)
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()

            if not self.training:  # inference
                if self.grid[i].shape[2:4] != x[i].shape[2:4]:
                    self.grid[i] = self._make_grid(nx, ny).to(x[i].device)

                y = x[i].sigmoid()
                y[..., 0:2] = (y[..., 0:2] * 2. - 0.5 + self.grid[i]) * self.stride[i]  # expect: GG107
                y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]  # also: GG107
                z.append(y.view(bs, -1, self.no))

        return x if self.training else (torch.cat(z, 1), x)

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)], indexing="ij")
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()


def conv_bn(c1, c2, s):
    return nn.Sequential(nn.Conv2d(c1, c2, 3, s, 1, bias=False), nn.BatchNorm2d(c2), nn.SiLU())


class Model(nn.Module):
    """A two-level YOLOv5-style detector shrunk to a handful of layers."""

    def __init__(self, nc=2):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, 8, 2), conv_bn(8, 16, 2), conv_bn(16, 16, 2))  # P3/8
        self.down = conv_bn(16, 32, 2)  # P4/16
        anchors = ((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119))
        self.detect = Detect(nc, anchors, ch=(16, 32))
        self.detect.stride = torch.tensor([8., 16.])
        self.detect.anchors /= self.detect.stride.view(-1, 1, 1)

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.down(p3)
        return self.detect([p3, p4])
