# corpus: mmdet-style HTC/SCP semantic head fuses FPN levels with `x += lateral_conv(feat)`; x is the output of a ReLU ConvModule that ReLU's backward needs, so the Runner's backward raises
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/open-mmlab/mmdetection/issues/7933
import random
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class ConvModule(nn.Module):
    """conv + ReLU, like mmcv.cnn.ConvModule with act_cfg=dict(type='ReLU')."""

    def __init__(self, in_channels, out_channels, kernel_size, padding=0):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding)
        self.activate = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.activate(self.conv(x))


class TinyFPN(nn.Module):
    def __init__(self, in_channels=3, out_channels=8, num_outs=3):
        super().__init__()
        self.stem = nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1)
        self.downs = nn.ModuleList(
            [nn.Conv2d(out_channels, out_channels, 3, stride=2, padding=1) for _ in range(num_outs - 1)])

    def forward(self, img):
        x = F.relu(self.stem(img))
        outs = [x]
        for down in self.downs:
            x = F.relu(down(x))
            outs.append(x)
        return tuple(outs)


class FusedSemanticHead(nn.Module):
    def __init__(self, num_ins=3, fusion_level=1, num_convs=2, in_channels=8,
                 conv_out_channels=8, num_classes=5, ignore_label=255, loss_weight=0.2):
        super().__init__()
        self.num_ins = num_ins
        self.fusion_level = fusion_level
        self.num_convs = num_convs
        self.loss_weight = loss_weight
        self.lateral_convs = nn.ModuleList(
            [ConvModule(in_channels, in_channels, 1) for _ in range(num_ins)])
        self.convs = nn.ModuleList(
            [ConvModule(in_channels if i == 0 else conv_out_channels, conv_out_channels, 3, padding=1)
             for i in range(num_convs)])
        self.conv_embedding = ConvModule(conv_out_channels, conv_out_channels, 1)
        self.conv_logits = nn.Conv2d(conv_out_channels, num_classes, 1)
        self.criterion = nn.CrossEntropyLoss(ignore_index=ignore_label)

    def forward(self, feats):
        x = self.lateral_convs[self.fusion_level](feats[self.fusion_level])
        fused_size = tuple(x.shape[-2:])
        for i, feat in enumerate(feats):
            if i != self.fusion_level:
                feat = F.interpolate(feat, size=fused_size, mode='bilinear', align_corners=True)
                x += self.lateral_convs[i](feat)  # expect: GG107

        for i in range(self.num_convs):
            x = self.convs[i](x)

        mask_pred = self.conv_logits(x)
        x = self.conv_embedding(x)
        return mask_pred, x

    def loss(self, mask_pred, labels):
        labels = labels.squeeze(1).long()
        loss_semantic_seg = self.criterion(mask_pred, labels)
        loss_semantic_seg = loss_semantic_seg * self.loss_weight
        return loss_semantic_seg


class SemanticDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.neck = TinyFPN()
        self.semantic_head = FusedSemanticHead()
        self.cls_head = nn.Linear(8, 4)

    def forward_train(self, img, gt_semantic_seg, gt_labels):
        feats = self.neck(img)
        losses = dict()
        mask_pred, semantic_feat = self.semantic_head(feats)
        gt_small = F.interpolate(gt_semantic_seg.float(), size=mask_pred.shape[-2:], mode='nearest')
        losses['loss_semantic_seg'] = self.semantic_head.loss(mask_pred, gt_small)
        pooled = semantic_feat.mean(dim=(2, 3))
        losses['loss_cls'] = F.cross_entropy(self.cls_head(pooled), gt_labels)
        return losses

    @staticmethod
    def _parse_losses(losses):
        log_vars = OrderedDict()
        for name, value in losses.items():
            log_vars[name] = value.mean()
        loss = sum(v for k, v in log_vars.items() if 'loss' in k)
        log_vars['loss'] = loss
        for name in log_vars:
            log_vars[name] = log_vars[name].item()
        return loss, log_vars

    def train_step(self, data, optimizer):
        losses = self.forward_train(**data)
        loss, log_vars = self._parse_losses(losses)
        return dict(loss=loss, log_vars=log_vars, num_samples=len(data['img']))


class OptimizerHook:
    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs['loss'].backward()  # also: GG107
        runner.optimizer.step()


class IterBasedRunner:
    def __init__(self, model, optimizer, hooks):
        self.model = model
        self.optimizer = optimizer
        self.hooks = hooks
        self.outputs = None
        self.iter = 0

    def call_hook(self, fn_name):
        for hook in self.hooks:
            getattr(hook, fn_name)(self)

    def run(self, data_loader, max_iters):
        self.model.train()
        while self.iter < max_iters:
            for data_batch in data_loader:
                self.outputs = self.model.train_step(data_batch, self.optimizer)
                self.call_hook('after_train_iter')
                self.iter += 1
                if self.iter >= max_iters:
                    break


def build_loader(num_batches=3, batch_size=2):
    batches = []
    for _ in range(num_batches):
        batches.append(dict(
            img=torch.randn(batch_size, 3, 32, 32),
            gt_semantic_seg=torch.randint(0, 5, (batch_size, 1, 32, 32)),
            gt_labels=torch.randint(0, 4, (batch_size,)),
        ))
    return batches


def main():
    model = SemanticDetector()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    runner = IterBasedRunner(model, optimizer, hooks=[OptimizerHook()])
    runner.run(build_loader(), max_iters=3)
    print('done', runner.iter)


if __name__ == "__main__":
    main()
