# corpus: segmentation encoder residual block applies ReLU and then adds the shortcut in place (out += residual), overwriting the ReLU output its backward needs
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/iMED-Lab/ER-Net/pull/3
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResEncoderBlock(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.shortcut = nn.Conv2d(in_ch, out_ch, 1)
        self.relu = nn.ReLU(inplace=False)

    def forward(self, x):
        residual = self.shortcut(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out += residual  # expect: GG107
        return out


class TinySegNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.enc1 = ResEncoderBlock(1, 8)
        self.enc2 = ResEncoderBlock(8, 16)
        self.dec = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        f1 = self.enc1(x)
        f2 = self.enc2(F.max_pool2d(f1, 2))
        return F.interpolate(self.dec(f2), scale_factor=2, mode="bilinear", align_corners=False)


def dice_loss(logits, target, eps=1e-6):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, probs.shape[1]).permute(0, 3, 1, 2).float()
    inter = (probs * onehot).sum((2, 3))
    union = probs.sum((2, 3)) + onehot.sum((2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def train(model, optimizer, steps=3):
    model.train()
    for step in range(steps):
        img = torch.randn(2, 1, 16, 16)
        mask = torch.randint(0, 3, (2, 16, 16))
        logits = model(img)
        losses = {"ce": F.cross_entropy(logits, mask), "dice": dice_loss(logits, mask)}
        total = sum(losses.values())
        optimizer.zero_grad()
        total.backward()  # also: GG107
        optimizer.step()
        print(step, {k: round(v.item(), 4) for k, v in losses.items()})


def main():
    torch.manual_seed(0)
    model = TinySegNet()
    train(model, torch.optim.Adam(model.parameters(), lr=1e-3))


if __name__ == "__main__":
    main()
