# corpus: prototype mean-teacher domain adaptation: class prototypes are EMA-updated from student/teacher features and kept on the module across iterations; the helper that detaches them after backward cuts prototype_t and prototype_s1 but not prototype_s2, so the next iteration backpropagates into the previous iteration's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/imatif17/Prototype-Mean-Teacher/issues/14
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Detector(nn.Module):
    def __init__(self, feat_dim=16, num_classes=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(10, feat_dim), nn.ReLU(), nn.Linear(feat_dim, feat_dim))
        self.cls = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        feat = self.backbone(x)
        return feat, self.cls(feat)


class PrototypeAlignment(nn.Module):
    def __init__(self, num_classes=3, feat_dim=16, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.prototype_t = torch.zeros(num_classes, feat_dim)
        self.prototype_s1 = torch.zeros(num_classes, feat_dim)
        self.prototype_s2 = torch.zeros(num_classes, feat_dim)

    def _class_means(self, feat, labels, num_classes):
        onehot = F.one_hot(labels, num_classes).float()
        return (onehot.t() @ feat) / onehot.sum(0).clamp_min(1).unsqueeze(1)

    def forward(self, feat_t, feat_s1, feat_s2, labels_t, labels_s1, labels_s2):
        k = self.prototype_t.shape[0]
        m = self.momentum
        self.prototype_t = m * self.prototype_t + (1 - m) * self._class_means(feat_t, labels_t, k)
        self.prototype_s1 = m * self.prototype_s1 + (1 - m) * self._class_means(feat_s1, labels_s1, k)
        self.prototype_s2 = m * self.prototype_s2 + (1 - m) * self._class_means(feat_s2, labels_s2, k)  # expect: GG104
        loss_pro1 = F.cosine_similarity(self.prototype_s1, self.prototype_t).abs().mean()
        loss_pro2 = F.cosine_similarity(self.prototype_s2, self.prototype_t).abs().mean()
        loss_pro3 = F.cosine_similarity(self.prototype_s1, self.prototype_s2).abs().mean()
        loss = -(loss_pro1 + loss_pro2 + loss_pro3) / 3
        return loss

    def detach_prototypes(self):
        # called after backward: cut the EMA history from the finished iteration
        self.prototype_t = self.prototype_t.detach()
        self.prototype_s1 = self.prototype_s1.detach()


class MeanTeacherTrainer:
    def __init__(self, args):
        self.args = args
        self.student = Detector()
        self.teacher = copy.deepcopy(self.student)
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.align = PrototypeAlignment()
        self.optimizer = torch.optim.SGD(self.student.parameters(), lr=args.lr)

    @torch.no_grad()
    def update_teacher(self, keep_rate=0.996):
        for t, s in zip(self.teacher.parameters(), self.student.parameters()):
            t.mul_(keep_rate).add_(s.detach(), alpha=1 - keep_rate)

    def run_step(self, it):
        src1, src2, tgt = torch.randn(6, 10), torch.randn(6, 10), torch.randn(6, 10)
        y1, y2 = torch.randint(0, 3, (6,)), torch.randint(0, 3, (6,))
        feat_s1, logits_s1 = self.student(src1)
        feat_s2, logits_s2 = self.student(src2)
        with torch.no_grad():
            feat_t, logits_t = self.teacher(tgt)
        pseudo = logits_t.argmax(1)
        loss_sup = F.cross_entropy(logits_s1, y1) + F.cross_entropy(logits_s2, y2)
        loss_pro = self.align(feat_t, feat_s1, feat_s2, pseudo, y1, y2)
        loss = loss_sup + self.args.pro_weight * loss_pro
        self.optimizer.zero_grad()
        loss.backward()  # also: GG104
        self.optimizer.step()
        self.align.detach_prototypes()
        self.update_teacher()
        print(f"iter {it} loss {loss.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--pro-weight", type=float, default=0.1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = MeanTeacherTrainer(args)
    for it in range(3):
        trainer.run_step(it)


if __name__ == "__main__":
    main()
