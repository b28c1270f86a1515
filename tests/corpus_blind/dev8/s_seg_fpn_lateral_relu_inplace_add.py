# corpus: FPN head for multi-class object counting; lateral ConvModules end in ReLU and the top-down pathway adds the upsampled map into laterals[i - 1] in place, overwriting the ReLU output its backward needs
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/lyongo/NWPU-MOC/issues/4
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvModule(nn.Module):
    def __init__(self, in_ch, out_ch, k=1):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, k, padding=k // 2)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.conv(x))


class TinyBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.c2 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.c3 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.c4 = nn.Conv2d(16, 32, 3, stride=2, padding=1)

    def forward(self, x):
        x2 = F.relu(self.c2(x))
        x3 = F.relu(self.c3(x2))
        x4 = F.relu(self.c4(x3))
        return [x2, x3, x4]


class FPNHead(nn.Module):
    def __init__(self, in_channels=(8, 16, 32), channels=16, num_classes=6):
        super().__init__()
        self.lateral_convs = nn.ModuleList(ConvModule(c, channels) for c in in_channels)
        self.fpn_convs = nn.ModuleList(ConvModule(channels, channels, 3) for _ in in_channels)
        self.density = nn.Conv2d(channels, num_classes, 1)

    def forward(self, inputs):
        laterals = [conv(inputs[i]) for i, conv in enumerate(self.lateral_convs)]
        for i in range(len(laterals) - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] += F.interpolate(laterals[i], size=prev_shape, mode="nearest")  # expect: GG107
        outs = [self.fpn_convs[i](laterals[i]) for i in range(len(laterals))]
        return self.density(outs[0])


class Trainer:
    def __init__(self, args):
        self.backbone = TinyBackbone()
        self.head = FPNHead()
        params = list(self.backbone.parameters()) + list(self.head.parameters())
        self.optimizer = torch.optim.Adam(params, lr=args.lr)
        self.criterion = nn.MSELoss()

    def train_one_epoch(self, num_iters):
        for it in range(num_iters):
            img = torch.randn(2, 3, 32, 32)
            gt_density = torch.rand(2, 6, 16, 16)
            pred = self.head(self.backbone(img))
            loss = self.criterion(pred, gt_density) * 100
            self.optimizer.zero_grad()
            loss.backward()  # also: GG107
            self.optimizer.step()
            print(f"iter {it} loss {loss.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    Trainer(args).train_one_epoch(2)


if __name__ == "__main__":
    main()
