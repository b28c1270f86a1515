# corpus: multi-label long-tail classifier whose head ends in a Sigmoid; ResampleLoss.logit_reg_functions shifts the scores with `logits += self.neg_bias`, overwriting the sigmoid output that SigmoidBackward saved, so the trainer's backward fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/wutong16/DistributionBalancedLoss/issues/20
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class LossConfig:
    focal: dict = field(default_factory=lambda: dict(focal=True, balance_param=2.0, gamma=2))
    map_param: dict = field(default_factory=lambda: dict(alpha=0.1, beta=10.0, gamma=0.2))
    logit_reg: dict = field(default_factory=lambda: dict(neg_scale=2.0, neg_bias=0.05))
    reweight_func: str = "rebalance"


def binary_cross_entropy(pred, label, weight=None, reduction="mean", avg_factor=None):
    loss = F.binary_cross_entropy_with_logits(pred, label.float(), weight=weight, reduction="none")
    if reduction == "mean":
        return loss.mean()
    return loss


class ResampleLoss(nn.Module):
    def __init__(self, cfg: LossConfig, class_freq, neg_class_freq, loss_weight=1.0):
        super().__init__()
        self.cls_criterion = binary_cross_entropy
        self.loss_weight = loss_weight
        self.reweight_func = cfg.reweight_func
        self.focal = cfg.focal["focal"]
        self.gamma = cfg.focal["gamma"]
        self.balance_param = cfg.focal["balance_param"]
        self.map_alpha = cfg.map_param["alpha"]
        self.map_beta = cfg.map_param["beta"]
        self.map_gamma = cfg.map_param["gamma"]
        self.class_freq = class_freq
        self.neg_class_freq = neg_class_freq
        self.train_num = self.class_freq[0] + self.neg_class_freq[0]
        self.logit_reg = cfg.logit_reg
        self.neg_scale = cfg.logit_reg.get("neg_scale", 1.0)
        neg_bias = cfg.logit_reg.get("neg_bias", 0.0)
        self.neg_bias = -torch.log(self.train_num / self.class_freq - 1) * neg_bias / self.neg_scale
        self.freq_inv = torch.ones(self.class_freq.shape) / self.class_freq

    def forward(self, cls_score, label):
        weight = self.reweight_functions(label)
        cls_score, weight = self.logit_reg_functions(label.float(), cls_score, weight)
        if self.focal:
            logpt = -self.cls_criterion(cls_score.clone(), label, weight=None, reduction="none")
            pt = torch.exp(logpt)
            loss = self.cls_criterion(cls_score, label.float(), weight=weight, reduction="none")
            loss = ((1 - pt) ** self.gamma) * loss
            loss = self.balance_param * loss
        else:
            loss = self.cls_criterion(cls_score, label.float(), weight)
        return self.loss_weight * loss.mean()

    def reweight_functions(self, label):
        if self.reweight_func == "rebalance":
            return self.rebalance_weight(label.float())
        return None

    def logit_reg_functions(self, labels, logits, weight=None):
        if not self.logit_reg:
            return logits, weight
        if "neg_bias" in self.logit_reg:
            logits += self.neg_bias  # expect: GG107
        if "neg_scale" in self.logit_reg:
            logits = logits * (1 - labels) * self.neg_scale + logits * labels
            weight = weight / self.neg_scale * (1 - labels) + weight * labels
        return logits, weight

    def rebalance_weight(self, gt_labels):
        repeat_rate = torch.sum(gt_labels * self.freq_inv, dim=1, keepdim=True)
        pos_weight = self.freq_inv.clone().detach().unsqueeze(0) / repeat_rate
        return torch.sigmoid(self.map_beta * (pos_weight - self.map_gamma)) + self.map_alpha


class MultiLabelClassifier(nn.Module):
    def __init__(self, in_dim=20, hidden=32, num_classes=6):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.cls_head = nn.Sequential(nn.Linear(hidden, num_classes), nn.Sigmoid())

    def forward(self, x):
        return self.cls_head(self.backbone(x))


class MLLTTrainer:
    def __init__(self, model, criterion, optimizer):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer

    def train_step(self, img, gt_labels):
        cls_score = self.model(img)
        loss = self.criterion(cls_score, gt_labels)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG107
        self.optimizer.step()
        return {"loss_cls": loss.item()}

    def train_epoch(self, batches):
        log = []
        for img, gt_labels in batches:
            log.append(self.train_step(img, gt_labels))
        return sum(d["loss_cls"] for d in log) / len(log)


def main():
    torch.manual_seed(0)
    num_classes = 6
    class_freq = torch.tensor([40.0, 25.0, 12.0, 6.0, 3.0, 2.0])
    neg_class_freq = 100.0 - class_freq
    model = MultiLabelClassifier(num_classes=num_classes)
    criterion = ResampleLoss(LossConfig(), class_freq, neg_class_freq)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    trainer = MLLTTrainer(model, criterion, optimizer)
    batches = [(torch.randn(8, 20), (torch.rand(8, num_classes) < 0.3).long()) for _ in range(3)]
    for epoch in range(2):
        print(f"epoch {epoch}: loss {trainer.train_epoch(batches):.4f}")


if __name__ == "__main__":
    main()
