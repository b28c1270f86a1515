# corpus: FocalFormer3D-style multi-layer query decoder for BEV 3D detection; the fix from the report: `query_feat = query_feat + roi_feat` (out-of-place) instead of `query_feat += roi_feat`, so the query tensor saved by the ROI projection stays intact; correct
# source: https://github.com/NVlabs/FocalFormer3D/issues/25
import random
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


def sigmoid_focal_loss(pred, target, alpha=0.25, gamma=2.0):
    prob = pred.sigmoid()
    ce = F.binary_cross_entropy_with_logits(pred, target, reduction='none')
    p_t = prob * target + (1 - prob) * (1 - target)
    loss = ce * ((1 - p_t) ** gamma)
    alpha_t = alpha * target + (1 - alpha) * (1 - target)
    return (alpha_t * loss).mean()


class RoIFeatureExtractor(nn.Module):
    """Samples the BEV map at the query centers and mixes it with the query."""

    def __init__(self, channels):
        super().__init__()
        self.proj = nn.Conv1d(2 * channels, channels, 1)

    def forward(self, query_feat, query_pos, bev_feat):
        grid = query_pos.unsqueeze(2)  # [B, K, 1, 2] in [-1, 1]
        sampled = F.grid_sample(bev_feat, grid, align_corners=False).squeeze(-1)  # [B, C, K]
        return self.proj(torch.cat([query_feat, sampled], dim=1))


class FocalDecoderLayer(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.roi_extractor = RoIFeatureExtractor(channels)
        self.ffn = nn.Sequential(nn.Conv1d(channels, 2 * channels, 1), nn.ReLU(),
                                 nn.Conv1d(2 * channels, channels, 1))
        self.norm = nn.GroupNorm(1, channels)

    def forward(self, query_feat, query_pos, bev_feat):
        roi_feat = self.roi_extractor(query_feat, query_pos, bev_feat)
        query_feat = query_feat + roi_feat
        query_feat = self.norm(query_feat + self.ffn(query_feat))
        return query_feat


class FocalDecoderHead(nn.Module):
    def __init__(self, channels=16, num_classes=3, num_proposals=12, num_decoder_layers=2):
        super().__init__()
        self.num_proposals = num_proposals
        self.heatmap_head = nn.Conv2d(channels, num_classes, 3, padding=1)
        self.decoder = nn.ModuleList([FocalDecoderLayer(channels) for _ in range(num_decoder_layers)])
        self.cls_branch = nn.Conv1d(channels, num_classes, 1)
        self.reg_branch = nn.Conv1d(channels, 7, 1)

    def forward(self, bev_feat):
        B, C, H, W = bev_feat.shape
        heatmap = self.heatmap_head(bev_feat)
        scores = heatmap.detach().sigmoid().amax(dim=1).view(B, -1)
        top_idx = scores.topk(self.num_proposals, dim=1).indices  # [B, K]
        flat = bev_feat.view(B, C, -1)
        query_feat = flat.gather(2, top_idx.unsqueeze(1).expand(-1, C, -1))  # [B, C, K]
        ys = (top_idx // W).float() / (H - 1) * 2 - 1
        xs = (top_idx % W).float() / (W - 1) * 2 - 1
        query_pos = torch.stack([xs, ys], dim=-1)

        preds = []
        for layer in self.decoder:
            query_feat = layer(query_feat, query_pos, bev_feat)
            preds.append(dict(cls=self.cls_branch(query_feat), reg=self.reg_branch(query_feat)))
        return heatmap, preds

    def loss(self, heatmap, preds, gt_heatmap, gt_cls, gt_reg):
        losses = OrderedDict()
        losses['loss_heatmap'] = sigmoid_focal_loss(heatmap, gt_heatmap)
        for i, pred in enumerate(preds):
            losses[f'layer{i}_loss_cls'] = sigmoid_focal_loss(pred['cls'], gt_cls)
            losses[f'layer{i}_loss_bbox'] = F.l1_loss(pred['reg'], gt_reg)
        return losses


class FocalFormerDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(4, 16, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.head = FocalDecoderHead()

    def train_step(self, data, optimizer):
        bev = self.backbone(data['points_bev'])
        heatmap, preds = self.head(bev)
        losses = self.head.loss(heatmap, preds, data['gt_heatmap'], data['gt_cls'], data['gt_reg'])
        loss = sum(v for v in losses.values())
        log_vars = {k: v.item() for k, v in losses.items()}
        return dict(loss=loss, log_vars=log_vars)


class OptimizerHook:
    def __init__(self, grad_clip=10.0):
        self.grad_clip = grad_clip

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs['loss'].backward()
        nn.utils.clip_grad_norm_(runner.model.parameters(), self.grad_clip)
        runner.optimizer.step()


class EpochBasedRunner:
    def __init__(self, model, optimizer, hooks):
        self.model, self.optimizer, self.hooks = model, optimizer, hooks
        self.outputs = None

    def train(self, data_loader, epochs):
        self.model.train()
        for epoch in range(epochs):
            for data in data_loader:
                self.outputs = self.model.train_step(data, self.optimizer)
                for hook in self.hooks:
                    hook.after_train_iter(self)
            print('epoch', epoch, 'loss %.4f' % sum(self.outputs['log_vars'].values()))


def make_batch(B=2, H=10, W=10, K=12):
    return dict(points_bev=torch.randn(B, 4, H, W),
                gt_heatmap=(torch.rand(B, 3, H, W) > 0.95).float(),
                gt_cls=(torch.rand(B, 3, K) > 0.7).float(),
                gt_reg=torch.randn(B, 7, K))


def main():
    model = FocalFormerDetector()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    runner = EpochBasedRunner(model, optimizer, [OptimizerHook()])
    runner.train([make_batch() for _ in range(3)], epochs=2)


if __name__ == "__main__":
    main()
