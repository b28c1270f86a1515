# corpus: EfficientDet-style BiFPN with fast normalized fusion: learnable nn.Parameter fusion weights pass through an out-of-place nn.ReLU, head biases get the prior-probability init via nn.init; trained with focal-style loss and grad clipping (correct)
# source: https://github.com/zylo117/Yet-Another-EfficientDet-Pytorch/issues/503
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


class BiFPNFuse(nn.Module):
    def __init__(self, channels=16, epsilon=1e-4):
        super().__init__()
        self.epsilon = epsilon
        self.p4_w1 = nn.Parameter(torch.ones(2, dtype=torch.float32), requires_grad=True)
        self.p4_w1_relu = nn.ReLU()
        self.conv4_up = nn.Conv2d(channels, channels, 3, padding=1)
        self.swish = Swish()

    def forward(self, p4_in, p5_in):
        p4_w1 = self.p4_w1_relu(self.p4_w1)
        weight = p4_w1 / (torch.sum(p4_w1, dim=0) + self.epsilon)
        p5_up = F.interpolate(p5_in, size=p4_in.shape[-2:], mode="nearest")
        return self.conv4_up(self.swish(weight[0] * p4_in + weight[1] * p5_up))


class EfficientDetLite(nn.Module):
    def __init__(self, num_classes=3, num_anchors=3, channels=16):
        super().__init__()
        self.num_classes = num_classes
        self.stem = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.down = nn.Conv2d(channels, channels, 3, stride=2, padding=1)
        self.bifpn = BiFPNFuse(channels)
        self.classifier = nn.Conv2d(channels, num_anchors * num_classes, 3, padding=1)
        self.regressor = nn.Conv2d(channels, num_anchors * 4, 3, padding=1)
        prior = 0.01
        nn.init.constant_(self.classifier.bias, -math.log((1 - prior) / prior))
        nn.init.zeros_(self.regressor.bias)

    def forward(self, x):
        p4 = F.relu(self.stem(x))
        p5 = F.relu(self.down(p4))
        feat = self.bifpn(p4, p5)
        cls = self.classifier(feat).permute(0, 2, 3, 1).reshape(x.shape[0], -1, self.num_classes)
        reg = self.regressor(feat).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 4)
        return cls, reg


class FocalLoss(nn.Module):
    def forward(self, cls_logits, reg, cls_targets, reg_targets, alpha=0.25, gamma=2.0):
        p = torch.sigmoid(cls_logits)
        ce = F.binary_cross_entropy_with_logits(cls_logits, cls_targets, reduction="none")
        p_t = p * cls_targets + (1 - p) * (1 - cls_targets)
        a_t = alpha * cls_targets + (1 - alpha) * (1 - cls_targets)
        num_pos = cls_targets.sum().clamp_min(1.0)
        cls_loss = (a_t * (1 - p_t) ** gamma * ce).sum() / num_pos
        reg_loss = F.smooth_l1_loss(reg, reg_targets, beta=1 / 9)
        return cls_loss, reg_loss


class ModelWithLoss(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.criterion = FocalLoss()

    def forward(self, imgs, cls_targets, reg_targets):
        cls, reg = self.model(imgs)
        return self.criterion(cls, reg, cls_targets, reg_targets)


def train(opt):
    model = ModelWithLoss(EfficientDetLite())
    optimizer = torch.optim.AdamW(model.parameters(), opt.lr)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3)
    for step in range(opt.num_steps):
        imgs = torch.randn(2, 3, 32, 32)
        cls_targets = (torch.rand(2, 16 * 16 * 3, 3) > 0.97).float()
        reg_targets = torch.randn(2, 16 * 16 * 3, 4) * 0.1
        optimizer.zero_grad()
        cls_loss, reg_loss = model(imgs, cls_targets, reg_targets)
        loss = cls_loss.mean() + reg_loss.mean()
        if loss == 0 or not torch.isfinite(loss):
            continue
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        scheduler.step(loss.item())
        print(f"step {step} cls {cls_loss.item():.4f} reg {reg_loss.item():.4f}")
    return model


def main():
    parser = argparse.ArgumentParser("EfficientDet trainer")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--num_steps", type=int, default=3)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = train(opt)
    assert model.model.bifpn.p4_w1.grad is not None


if __name__ == "__main__":
    main()
