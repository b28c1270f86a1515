# corpus: SoftTeacher-style semi-supervised detector: the student runs forward_train separately on labeled and on unlabeled data (pseudo-labels from an EMA teacher under no_grad), the two loss dicts are merged and backpropagated once (correct)
# source: https://github.com/microsoft/SoftTeacher/issues/239
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoStageDetector(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten())
        self.cls_head = nn.Linear(64, num_classes)
        self.reg_head = nn.Linear(64, 4)

    def forward(self, img):
        feat = self.backbone(img)
        return self.cls_head(feat), self.reg_head(feat)

    def forward_train(self, img, gt_labels, gt_bboxes, weights=None):
        cls_score, bbox_pred = self(img)
        loss_cls = F.cross_entropy(cls_score, gt_labels, reduction="none")
        if weights is not None:
            loss_cls = loss_cls * weights
        return {"loss_cls": loss_cls.mean(), "loss_bbox": F.smooth_l1_loss(bbox_pred, gt_bboxes)}


class SoftTeacher(nn.Module):
    def __init__(self, unsup_weight=2.0, score_thr=0.3):
        super().__init__()
        self.student = TwoStageDetector()
        self.teacher = copy.deepcopy(self.student)
        self.teacher.requires_grad_(False)
        self.unsup_weight = unsup_weight
        self.score_thr = score_thr

    def forward_train(self, data_groups):
        loss = {}
        sup = data_groups["sup"]
        sup_loss = self.student.forward_train(sup["img"], sup["gt_labels"], sup["gt_bboxes"])
        loss.update({"sup_" + k: v for k, v in sup_loss.items()})

        unsup = data_groups["unsup"]
        with torch.no_grad():
            t_cls, t_bbox = self.teacher(unsup["img_weak"])
            scores, pseudo_labels = F.softmax(t_cls, dim=1).max(1)
            weights = (scores > self.score_thr).float()
        unsup_loss = self.student.forward_train(unsup["img_strong"], pseudo_labels, t_bbox, weights=weights)
        loss.update({"unsup_" + k: v * self.unsup_weight for k, v in unsup_loss.items()})
        return loss

    @torch.no_grad()
    def momentum_update(self, momentum=0.999):
        for tgt, src in zip(self.teacher.parameters(), self.student.parameters()):
            tgt.data.mul_(momentum).add_(src.data, alpha=1 - momentum)


def parse_losses(losses):
    loss = sum(v for k, v in losses.items() if "loss" in k)
    log_vars = {k: v.item() for k, v in losses.items()}
    log_vars["loss"] = loss.item()
    return loss, log_vars


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = SoftTeacher()
    optimizer = torch.optim.SGD(model.student.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    for it in range(args.iters):
        data = {
            "sup": {"img": torch.randn(4, 3, 16, 16), "gt_labels": torch.randint(0, 4, (4,)), "gt_bboxes": torch.rand(4, 4)},
            "unsup": {"img_weak": torch.randn(4, 3, 16, 16), "img_strong": torch.randn(4, 3, 16, 16)},
        }
        losses = model.forward_train(data)
        loss, log_vars = parse_losses(losses)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.momentum_update()
        print(it, round(log_vars["loss"], 4))
    assert model.student.cls_head.weight.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
