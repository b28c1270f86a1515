# corpus: RetinaNet-style trainer backpropagates each FPN level's loss separately; both levels hang off one backbone forward, so the second level's backward hits freed buffers
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://discuss.pytorch.org/t/loss-backward-in-retinanet-fpn/22828
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainConfig:
    num_classes: int = 3
    num_anchors: int = 4
    lr: float = 0.01
    iters: int = 3


class TinyFPN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c3 = nn.Sequential(nn.Linear(12, 16), nn.ReLU())
        self.c4 = nn.Sequential(nn.Linear(16, 16), nn.ReLU())
        self.lateral3 = nn.Linear(16, 8)
        self.lateral4 = nn.Linear(16, 8)
        # one head shared by every pyramid level, as in RetinaNet
        self.cls_head = nn.Linear(8, cfg.num_anchors * cfg.num_classes)
        self.box_head = nn.Linear(8, cfg.num_anchors * 4)
        self.cfg = cfg

    def forward(self, images):
        c3 = self.c3(images)
        c4 = self.c4(c3)
        p4 = self.lateral4(c4)
        p3 = self.lateral3(c3) + p4
        outs = {}
        for name, p in (("p3", p3), ("p4", p4)):
            cls = self.cls_head(p).view(-1, self.cfg.num_anchors, self.cfg.num_classes)
            box = self.box_head(p).view(-1, self.cfg.num_anchors, 4)
            outs[name] = (cls, box)
        return outs


class FocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0):
        super().__init__()
        self.alpha, self.gamma = alpha, gamma

    def forward(self, outs, cls_targets, box_targets):
        losses = {}
        for level, (cls_pred, box_pred) in outs.items():
            t = F.one_hot(cls_targets[level], cls_pred.size(-1)).float()
            p = cls_pred.sigmoid()
            pt = p * t + (1 - p) * (1 - t)
            w = self.alpha * t + (1 - self.alpha) * (1 - t)
            focal = F.binary_cross_entropy_with_logits(cls_pred, t, reduction="none")
            cls_loss = (w * (1 - pt).pow(self.gamma) * focal).sum() / t.sum()
            box_loss = F.smooth_l1_loss(box_pred, box_targets[level])
            losses[level] = cls_loss + box_loss
        return losses


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = TinyFPN(cfg)
        self.criterion = FocalLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=cfg.lr, momentum=0.9)

    def train_step(self, images, cls_targets, box_targets):
        self.optimizer.zero_grad()
        outs = self.model(images)
        level_losses = self.criterion(outs, cls_targets, box_targets)
        # "why add them up? just call backward on each output layer"
        level_losses["p3"].backward()  # also: GG102
        level_losses["p4"].backward()  # expect: GG102
        self.optimizer.step()
        return {k: v.item() for k, v in level_losses.items()}


def fake_batch(cfg, batch=4):
    images = torch.randn(batch, 12)
    cls_t = {lvl: torch.randint(0, cfg.num_classes, (batch, cfg.num_anchors)) for lvl in ("p3", "p4")}
    box_t = {lvl: torch.randn(batch, cfg.num_anchors, 4) for lvl in ("p3", "p4")}
    return images, cls_t, box_t


def main():
    torch.manual_seed(0)
    cfg = TrainConfig()
    trainer = Trainer(cfg)
    for it in range(cfg.iters):
        logs = trainer.train_step(*fake_batch(cfg))
        print(it, logs)


if __name__ == "__main__":
    main()
