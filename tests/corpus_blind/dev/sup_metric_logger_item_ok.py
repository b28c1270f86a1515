# corpus: detection-style train_one_epoch passes the loss dict tensors to MetricLogger.update, which converts them with .item() (correct)
# source: https://github.com/pytorch/pytorch/issues/6925
import math
from collections import defaultdict, deque

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmoothedValue:
    def __init__(self, window_size=20):
        self.deque = deque(maxlen=window_size)
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.deque.append(value)
        self.count += n
        self.total += value * n

    @property
    def global_avg(self):
        return self.total / self.count


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()
            assert isinstance(v, (float, int))
            self.meters[k].update(v)

    def __str__(self):
        return self.delimiter.join(f"{name}: {m.global_avg:.4f}" for name, m in self.meters.items())


class TwoStageHead(nn.Module):
    def __init__(self, d=16, num_classes=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d, 32), nn.ReLU())
        self.cls_score = nn.Linear(32, num_classes)
        self.bbox_pred = nn.Linear(32, 4)

    def forward(self, feats, targets):
        h = self.backbone(feats)
        return {
            "loss_classifier": F.cross_entropy(self.cls_score(h), targets["labels"]),
            "loss_box_reg": F.smooth_l1_loss(self.bbox_pred(h), targets["boxes"], beta=1 / 9),
        }


def reduce_dict(input_dict, average=True):
    # single-process: nothing to all-reduce
    return input_dict


def train_one_epoch(model, optimizer, data_loader, epoch):
    model.train()
    metric_logger = MetricLogger()
    for feats, targets in data_loader:
        loss_dict = model(feats, targets)
        losses = sum(loss for loss in loss_dict.values())

        loss_dict_reduced = reduce_dict(loss_dict)
        losses_reduced = sum(loss for loss in loss_dict_reduced.values())
        loss_value = losses_reduced.item()
        if not math.isfinite(loss_value):
            raise RuntimeError(f"Loss is {loss_value}, stopping training")

        optimizer.zero_grad()
        losses.backward()
        optimizer.step()

        metric_logger.update(loss=losses_reduced, **loss_dict_reduced)
        metric_logger.update(lr=optimizer.param_groups[0]["lr"])
    print(f"Epoch: [{epoch}]", metric_logger)
    return metric_logger


def main():
    torch.manual_seed(0)
    model = TwoStageHead()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    loader = [(torch.randn(8, 16), {"labels": torch.randint(0, 5, (8,)), "boxes": torch.randn(8, 4)}) for _ in range(4)]
    for epoch in range(2):
        logger = train_one_epoch(model, optimizer, loader, epoch)
    return model, logger


if __name__ == "__main__":
    model, logger = main()
    assert all(p.grad is not None for p in model.parameters())
    assert all(isinstance(v, float) for m in logger.meters.values() for v in m.deque)
    assert all(isinstance(m.total, float) for m in logger.meters.values())
