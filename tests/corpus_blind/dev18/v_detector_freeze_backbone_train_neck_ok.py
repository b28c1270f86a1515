# corpus: A two-stage detector freezes its backbone and all neck layers except a newly added ATS block, but keeps the RPN and RoI heads trainable, so the summed loss dict still has a graph reaching ATS; this is fine.
# source: https://github.com/open-mmlab/mmdetection/issues/4040
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self):
        super(Backbone, self).__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU())

    def forward(self, x):
        x = self.stem(x)
        c3 = self.layer1(x)
        c4 = self.layer2(c3)
        return c3, c4


class ATSBlock(nn.Module):
    """The user's new attention block inserted into the FPN."""

    def __init__(self, channels):
        super(ATSBlock, self).__init__()
        self.gate = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        return x * torch.sigmoid(self.gate(x)) + x


class FPNWithATS(nn.Module):
    def __init__(self, in_channels=(32, 64), out_channels=32):
        super(FPNWithATS, self).__init__()
        self.lateral_convs = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels)
        self.fpn_convs = nn.ModuleList(nn.Conv2d(out_channels, out_channels, 3, padding=1) for _ in in_channels)
        self.ATS = nn.ModuleList(ATSBlock(out_channels) for _ in in_channels)

    def forward(self, feats):
        laterals = [conv(f) for conv, f in zip(self.lateral_convs, feats)]
        laterals[0] = laterals[0] + F.interpolate(laterals[1], size=laterals[0].shape[2:], mode="nearest")
        outs = [conv(lat) for conv, lat in zip(self.fpn_convs, laterals)]
        return [ats(o) for ats, o in zip(self.ATS, outs)]


class RPNHead(nn.Module):
    def __init__(self, channels, num_anchors=3):
        super(RPNHead, self).__init__()
        self.rpn_conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.rpn_cls = nn.Conv2d(channels, num_anchors, 1)
        self.rpn_reg = nn.Conv2d(channels, num_anchors * 4, 1)

    def forward_train(self, feats, gt_obj):
        loss_cls, loss_bbox = 0.0, 0.0
        for f, t in zip(feats, gt_obj):
            h = F.relu(self.rpn_conv(f))
            loss_cls = loss_cls + F.binary_cross_entropy_with_logits(self.rpn_cls(h), t)
            loss_bbox = loss_bbox + F.smooth_l1_loss(self.rpn_reg(h), torch.zeros_like(self.rpn_reg(h)))
        return dict(loss_rpn_cls=loss_cls, loss_rpn_bbox=loss_bbox)


class RoIHead(nn.Module):
    def __init__(self, channels, num_classes=4):
        super(RoIHead, self).__init__()
        self.shared_fc = nn.Linear(channels * 7 * 7, 64)
        self.fc_cls = nn.Linear(64, num_classes + 1)
        self.fc_reg = nn.Linear(64, 4 * num_classes)

    def forward_train(self, feats, gt_labels):
        rois = F.adaptive_avg_pool2d(feats[0], 7).flatten(1)
        h = F.relu(self.shared_fc(rois))
        loss_cls = F.cross_entropy(self.fc_cls(h), gt_labels)
        loss_bbox = self.fc_reg(h).abs().mean()
        return dict(loss_cls=loss_cls, loss_bbox=loss_bbox)


class TwoStageDetector(nn.Module):
    def __init__(self):
        super(TwoStageDetector, self).__init__()
        self.backbone = Backbone()
        self.neck = FPNWithATS()
        self.rpn_head = RPNHead(32)
        self.roi_head = RoIHead(32)
        for v in self.backbone.parameters():
            v.requires_grad = False
        for name, para in self.neck.named_parameters():
            if "ATS" not in name:
                para.requires_grad = False

    def forward_train(self, img, gt_obj, gt_labels):
        x = self.neck(self.backbone(img))
        losses = dict()
        losses.update(self.rpn_head.forward_train(x, gt_obj))
        losses.update(self.roi_head.forward_train(x, gt_labels))
        return losses


def parse_losses(losses):
    log_vars = OrderedDict()
    for loss_name, loss_value in losses.items():
        log_vars[loss_name] = loss_value.mean()
    loss = sum(_value for _key, _value in log_vars.items() if "loss" in _key)
    log_vars["loss"] = loss
    for k in log_vars:
        log_vars[k] = log_vars[k].item()
    return loss, log_vars


def main():
    torch.manual_seed(0)
    model = TwoStageDetector()
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.02, momentum=0.9, weight_decay=1e-4)
    for it in range(3):
        img = torch.rand(2, 3, 64, 64)
        gt_obj = [(torch.rand(2, 3, 16, 16) > 0.8).float(), (torch.rand(2, 3, 8, 8) > 0.8).float()]
        gt_labels = torch.randint(0, 5, (2,))
        losses = model.forward_train(img, gt_obj, gt_labels)
        loss, log_vars = parse_losses(losses)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(it, {k: round(v, 4) for k, v in log_vars.items()})


if __name__ == "__main__":
    main()
