# corpus: self-distillation trainer (deep stage teaches a shallow auxiliary branch); the teacher feature is "detached" with a bare t_feat.detach() statement, so the distill loss silently trains the teacher stage too
# source: https://github.com/open-mmlab/mmrazor/pull/100
import argparse
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self, width=16, num_classes=5):
        super().__init__()
        self.stage1 = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.stage2 = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.aux = nn.Conv2d(width, width, 1)  # shallow branch that mimics stage2
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        f1 = self.stage1(x)
        f2 = self.stage2(f1)
        logits = self.head(f2.mean((2, 3)))
        return logits, OrderedDict(aux=self.aux(f1), stage2=f2)


class ChannelWiseDivergence(nn.Module):
    def __init__(self, tau=1.0, loss_weight=3.0):
        super().__init__()
        self.tau = tau
        self.loss_weight = loss_weight

    def forward(self, preds_s, preds_t):
        n, c, h, w = preds_s.shape
        softmax_t = F.softmax(preds_t.reshape(-1, h * w) / self.tau, dim=1)
        logsoftmax_s = F.log_softmax(preds_s.reshape(-1, h * w) / self.tau, dim=1)
        loss = torch.sum(softmax_t * (softmax_t.clamp_min(1e-8).log() - logsoftmax_s)) * self.tau ** 2
        return self.loss_weight * loss / (n * c)


class SelfDistiller:
    def __init__(self, components):
        self.components = components  # (student_name, teacher_name)
        self.loss_fn = ChannelWiseDivergence()

    def compute_distill_loss(self, feats):
        losses = {}
        for s_name, t_name in self.components:
            s_feat = feats[s_name]
            t_feat = feats[t_name]
            t_feat.detach()  # expect: GG112
            losses[f"loss_cwd_{s_name}"] = self.loss_fn(s_feat, t_feat)
        return losses


class Runner:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = Backbone()
        self.distiller = SelfDistiller([("aux", "stage2")])
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=cfg.lr, momentum=0.9)

    def train_step(self, images, labels):
        logits, feats = self.model(images)
        losses = {"loss_cls": F.cross_entropy(logits, labels)}
        losses.update(self.distiller.compute_distill_loss(feats))
        loss = sum(losses.values())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()}

    def run(self):
        for it in range(self.cfg.iters):
            images = torch.randn(4, 3, 8, 8)
            labels = torch.randint(0, 5, (4,))
            log = self.train_step(images, labels)
        print("last", {k: round(v, 4) for k, v in log.items()})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--iters", type=int, default=3)
    cfg = parser.parse_args([])
    torch.manual_seed(0)
    Runner(cfg).run()


if __name__ == "__main__":
    main()
