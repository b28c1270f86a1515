import torch
import torch.nn as nn
import torch.nn.functional as F


class MaxProbExtractor(nn.Module):
    """Extracts the max objectness*class score for the attacked class."""

    def __init__(self, cls_id, num_cls):
        super().__init__()
        self.cls_id = cls_id
        self.num_cls = num_cls

    def forward(self, output):
        # output: (bs, num_boxes, 5 + num_cls) already decoded by Detect
        obj = output[:, :, 4]
        cls = output[:, :, 5:5 + self.num_cls]
        conf = obj * cls[:, :, self.cls_id]
        max_conf, _ = torch.max(conf, dim=1)
        return max_conf


class TotalVariation(nn.Module):
    def forward(self, adv_patch):
        tvcomp1 = torch.abs(adv_patch[:, :, 1:] - adv_patch[:, :, :-1]).sum()
        tvcomp2 = torch.abs(adv_patch[:, 1:, :] - adv_patch[:, :-1, :]).sum()
        return (tvcomp1 + tvcomp2) / adv_patch.numel()


class PatchApplier(nn.Module):
    def forward(self, img_batch, adv_patch, top=12, left=12):
        _, _, h, w = img_batch.shape
        ph, pw = adv_patch.shape[1:]
        padded = F.pad(adv_patch, (left, w - left - pw, top, h - top - ph))
        mask = F.pad(torch.ones_like(adv_patch), (left, w - left - pw, top, h - top - ph))
        return img_batch * (1 - mask) + padded * mask
