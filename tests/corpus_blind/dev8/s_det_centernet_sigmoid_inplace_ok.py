# corpus: CenterNet-style detector trainer: the heatmap head output goes through _sigmoid = clamp(x.sigmoid_()) in place before the focal loss, and heads use ReLU(inplace=True) after a conv; the in-place ops touch only conv outputs nobody saved (correct)
# source: https://github.com/xingyizhou/CenterNet/issues/201
import argparse

import torch
import torch.nn as nn


def _sigmoid(x):
    y = torch.clamp(x.sigmoid_(), min=1e-4, max=1 - 1e-4)
    return y


def _neg_loss(pred, gt):
    pos_inds = gt.eq(1).float()
    neg_inds = gt.lt(1).float()
    neg_weights = torch.pow(1 - gt, 4)
    pos_loss = torch.log(pred) * torch.pow(1 - pred, 2) * pos_inds
    neg_loss = torch.log(1 - pred) * torch.pow(pred, 2) * neg_weights * neg_inds
    num_pos = pos_inds.float().sum()
    pos_loss = pos_loss.sum()
    neg_loss = neg_loss.sum()
    if num_pos == 0:
        return -neg_loss
    return -(pos_loss + neg_loss) / num_pos


class FocalLoss(nn.Module):
    def forward(self, out, target):
        return _neg_loss(out, target)


class CenterNetHead(nn.Module):
    def __init__(self, heads, head_conv=16):
        super().__init__()
        self.base = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.heads = heads
        for head, classes in heads.items():
            fc = nn.Sequential(nn.Conv2d(16, head_conv, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(head_conv, classes, 1))
            if "hm" in head:
                fc[-1].bias.data.fill_(-2.19)
            self.__setattr__(head, fc)

    def forward(self, x):
        x = self.base(x)
        return [{head: self.__getattr__(head)(x) for head in self.heads}]


class CtdetLoss(nn.Module):
    def __init__(self, hm_weight=1.0, wh_weight=0.1):
        super().__init__()
        self.crit = FocalLoss()
        self.crit_wh = nn.L1Loss()
        self.hm_weight, self.wh_weight = hm_weight, wh_weight

    def forward(self, outputs, batch):
        output = outputs[0]
        output["hm"] = _sigmoid(output["hm"])
        hm_loss = self.crit(output["hm"], batch["hm"])
        wh_loss = self.crit_wh(output["wh"] * batch["reg_mask"], batch["wh"] * batch["reg_mask"])
        loss = self.hm_weight * hm_loss + self.wh_weight * wh_loss
        return loss, {"loss": loss, "hm_loss": hm_loss, "wh_loss": wh_loss}


class ModelWithLoss(nn.Module):
    def __init__(self, model, loss):
        super().__init__()
        self.model = model
        self.loss = loss

    def forward(self, batch):
        outputs = self.model(batch["input"])
        loss, loss_stats = self.loss(outputs, batch)
        return outputs[-1], loss, loss_stats


def make_batch(num_classes=3):
    hm = torch.rand(2, num_classes, 8, 8) * 0.9
    hm[0, 1, 3, 4] = 1.0
    hm[1, 0, 5, 2] = 1.0
    return {"input": torch.randn(2, 3, 16, 16), "hm": hm, "wh": torch.rand(2, 2, 8, 8) * 4, "reg_mask": (hm.max(1, keepdim=True)[0] == 1).float()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1.25e-4)
    parser.add_argument("--num_iters", type=int, default=3)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = CenterNetHead({"hm": 3, "wh": 2})
    model_with_loss = ModelWithLoss(model, CtdetLoss())
    optimizer = torch.optim.Adam(model.parameters(), opt.lr)
    for it in range(opt.num_iters):
        output, loss, loss_stats = model_with_loss(make_batch())
        loss = loss.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(it, {k: round(v.mean().item(), 4) for k, v in loss_stats.items()})
    assert model.hm[0].weight.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
