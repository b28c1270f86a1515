# corpus: DecoupleNet-style domain-adaptive segmentation trainer that records its per-term losses for logging with `+=` on the loss tensors (no .item()), so every iteration's graph stays alive in the running sums
# source: https://github.com/JIA-Lab-research/DecoupleNet/issues/3
import argparse
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class SegNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        )
        self.classifier = nn.Conv2d(16, num_classes, 1)
        self.domain_head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 1))

    def forward(self, x):
        feat = self.backbone(x)
        return self.classifier(feat), self.domain_head(feat)


def compute_losses(model, src_img, src_lbl, tgt_img, lambda_adv):
    src_pred, src_dom = model(src_img)
    tgt_pred, tgt_dom = model(tgt_img)
    loss_seg = F.cross_entropy(src_pred, src_lbl, ignore_index=255)
    loss_dom = F.binary_cross_entropy_with_logits(src_dom, torch.zeros_like(src_dom)) + \
        F.binary_cross_entropy_with_logits(tgt_dom, torch.ones_like(tgt_dom))
    tgt_prob = F.softmax(tgt_pred, dim=1)
    loss_ent = -(tgt_prob * torch.log(tgt_prob + 1e-6)).sum(1).mean()
    return {"seg": loss_seg, "dom": lambda_adv * loss_dom, "ent": 0.01 * loss_ent}


def train_phase1(args, model, optimizer):
    model.train()
    loss_sums = defaultdict(float)
    for i in range(args.iters):
        src_img = torch.randn(2, 3, 16, 16)
        src_lbl = torch.randint(0, args.num_classes, (2, 16, 16))
        tgt_img = torch.randn(2, 3, 16, 16)

        losses = compute_losses(model, src_img, src_lbl, tgt_img, args.lambda_adv)
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        for k, v in losses.items():
            loss_sums[k] += v  # expect: GG301

        if (i + 1) % args.print_freq == 0:
            msg = " ".join("{}={:.4f}".format(k, v.item() / (i + 1)) for k, v in loss_sums.items())
            print("iter {}: {}".format(i + 1, msg))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_classes", type=int, default=4)
    parser.add_argument("--iters", type=int, default=6)
    parser.add_argument("--print_freq", type=int, default=3)
    parser.add_argument("--lambda_adv", type=float, default=0.001)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = SegNet(args.num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    train_phase1(args, model, optimizer)


if __name__ == "__main__":
    main()
