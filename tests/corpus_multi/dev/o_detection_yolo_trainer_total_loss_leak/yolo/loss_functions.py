import torch
import torch.nn as nn
import torch.nn.functional as F


class YOLOLoss(nn.Module):
    def __init__(self, box_weight=7.5, cls_weight=0.5):
        super().__init__()
        self.box_weight = box_weight
        self.cls_weight = cls_weight

    def forward(self, predicts, targets):
        cls_logits, box_pred = predicts
        cls_target, box_target = targets
        box_loss = F.smooth_l1_loss(box_pred.relu(), box_target)
        cls_loss = F.binary_cross_entropy_with_logits(cls_logits, cls_target)
        loss = self.box_weight * box_loss + self.cls_weight * cls_loss
        loss_dict = {"BoxLoss": box_loss, "BCELoss": cls_loss}  # also: GG301
        return loss, loss_dict
