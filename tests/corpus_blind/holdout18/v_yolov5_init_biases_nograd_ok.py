# corpus: A YOLOv5-style detector initialises the objectness/class biases through a view of the Detect conv biases inside torch.no_grad(), then trains normally; this is fine.
# source: https://github.com/ultralytics/yolov5/issues/1552
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1):
        super(Conv, self).__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Detect(nn.Module):
    stride = None

    def __init__(self, nc=80, anchors=(), ch=()):
        super(Detect, self).__init__()
        self.nc = nc
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.register_buffer("anchors", torch.tensor(anchors).float().view(self.nl, -1, 2))
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)

    def forward(self, x):
        z = []
        for i in range(self.nl):
            p = self.m[i](x[i])
            bs, _, ny, nx = p.shape
            z.append(p.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous())
        return z


class Model(nn.Module):
    def __init__(self, cfg, ch=3, nc=None):
        super(Model, self).__init__()
        self.yaml = cfg
        nc = nc or cfg["nc"]
        self.backbone = nn.ModuleList([Conv(ch, 16, 3, 2), Conv(16, 32, 3, 2), Conv(32, 64, 3, 2)])
        self.model = nn.ModuleList([Detect(nc, cfg["anchors"], ch=(32, 64))])

        m = self.model[-1]
        s = 128
        with torch.no_grad():
            m.stride = torch.tensor([s / x.shape[-2] for x in self.forward(torch.zeros(1, ch, s, s))])
        m.anchors /= m.stride.view(-1, 1, 1)
        self.stride = m.stride
        self._initialize_biases()

    def forward(self, x):
        feats = []
        for i, layer in enumerate(self.backbone):
            x = layer(x)
            if i >= 1:
                feats.append(x)
        return self.model[-1](feats)

    def _initialize_biases(self, cf=None):
        m = self.model[-1]
        for mi, s in zip(m.m, m.stride):
            b = mi.bias.view(m.na, -1)
            with torch.no_grad():
                b[:, 4] += math.log(8 / (640 / s) ** 2)
                b[:, 5:] += math.log(0.6 / (m.nc - 0.99)) if cf is None else torch.log(cf / cf.sum())
            mi.bias = torch.nn.Parameter(b.view(-1), requires_grad=True)


class ComputeLoss(object):
    def __init__(self, model, hyp):
        self.hyp = hyp
        self.BCEobj = nn.BCEWithLogitsLoss()
        self.BCEcls = nn.BCEWithLogitsLoss()
        self.nc = model.model[-1].nc

    def __call__(self, p, targets):
        lobj = torch.zeros(1)
        lcls = torch.zeros(1)
        for pi, tobj in zip(p, targets):
            lobj = lobj + self.BCEobj(pi[..., 4], tobj)
            tcls = F.one_hot(torch.zeros_like(tobj, dtype=torch.long), self.nc).float()
            lcls = lcls + self.BCEcls(pi[..., 5:], tcls) * tobj.mean()
        lobj = lobj * self.hyp["obj"]
        lcls = lcls * self.hyp["cls"]
        bs = p[0].shape[0]
        return (lobj + lcls) * bs, torch.cat((lobj, lcls)).detach()


def main():
    torch.manual_seed(0)
    cfg = {"nc": 3, "anchors": [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119]]}
    model = Model(cfg)
    hyp = {"obj": 1.0, "cls": 0.5}
    compute_loss = ComputeLoss(model, hyp)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
    for step in range(3):
        imgs = torch.rand(2, 3, 64, 64)
        pred = model(imgs)
        targets = [(torch.rand(p.shape[:-1]) > 0.9).float() for p in pred]
        loss, loss_items = compute_loss(pred, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss_items.tolist())


if __name__ == "__main__":
    main()
