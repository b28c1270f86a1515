# corpus: anchor-free detector initializes per-level classification/centerness biases through views of the bias Parameters inside torch.no_grad(), then trains normally (correct)
# source: https://github.com/DataXujing/YOLO-v5/issues/23
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class DetectHead(nn.Module):
    def __init__(self, in_ch=16, n_classes=3, n_levels=2):
        super().__init__()
        self.nc = n_classes
        self.no = n_classes + 5  # 4 box + 1 centerness + classes
        self.preds = nn.ModuleList(nn.Conv2d(in_ch, self.no, 1) for _ in range(n_levels))
        self.strides = [8, 16]

    def initialize_biases(self, prior_prob=0.01):
        with torch.no_grad():
            for conv, s in zip(self.preds, self.strides):
                b = conv.bias.view(-1)
                b[4] += math.log(8 / (640 / s) ** 2)
                b[5:] += -math.log((1 - prior_prob) / prior_prob)

    def forward(self, feats):
        return [conv(f).flatten(2).transpose(1, 2) for conv, f in zip(self.preds, feats)]


class TinyDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.c3 = nn.Sequential(nn.Conv2d(3, 16, 3, 8, 1), nn.SiLU())
        self.c4 = nn.Sequential(nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU())
        self.head = DetectHead()
        self.head.initialize_biases()

    def forward(self, x):
        p3 = self.c3(x)
        return self.head([p3, self.c4(p3)])


def detection_losses(preds, targets):
    out = torch.cat(preds, 1)
    return {
        "box": F.l1_loss(out[..., :4], targets["box"].expand_as(out[..., :4])),
        "ctr": F.binary_cross_entropy_with_logits(out[..., 4], targets["ctr"].expand_as(out[..., 4])),
        "cls": F.binary_cross_entropy_with_logits(out[..., 5:], targets["cls"].expand_as(out[..., 5:])),
    }


def main():
    torch.manual_seed(0)
    model = TinyDetector()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(3):
        targets = {"box": torch.rand(2, 1, 4), "ctr": torch.rand(2, 1), "cls": torch.zeros(2, 1, 3)}
        losses = detection_losses(model(torch.randn(2, 3, 64, 64)), targets)
        total = sum(losses.values())
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        print(step, {k: round(v.item(), 4) for k, v in losses.items()})


if __name__ == "__main__":
    main()
