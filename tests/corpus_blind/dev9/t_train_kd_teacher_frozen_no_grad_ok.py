# corpus: knowledge-distillation trainer with a frozen teacher run under torch.no_grad, student forward returning (logits, features) both consumed by a dict of KD/CE/feature losses summed into one backward (correct)
# source: https://github.com/lightly-ai/lightly-train/pull/434
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, width, n_classes=10, feat_dim=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, width), nn.ReLU(), nn.Linear(width, feat_dim), nn.ReLU())
        self.classifier = nn.Linear(feat_dim, n_classes)

    def forward(self, x):
        feats = self.backbone(x)
        return self.classifier(feats), feats


def get_teacher():
    teacher = Net(width=64)
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher


class DistillationTrainer:
    def __init__(self, student, teacher, temperature=4.0, alpha=0.7):
        self.student = student
        self.teacher = teacher
        self.T = temperature
        self.alpha = alpha
        self.optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)

    def compute_losses(self, x, y):
        s_logits, s_feats = self.student(x)
        with torch.no_grad():
            t_logits, t_feats = self.teacher(x)
        kd = F.kl_div(F.log_softmax(s_logits / self.T, 1), F.softmax(t_logits / self.T, 1),
                      reduction="batchmean") * self.T ** 2
        return {
            "kd": self.alpha * kd,
            "ce": (1 - self.alpha) * F.cross_entropy(s_logits, y),
            "feat": 0.1 * F.mse_loss(s_feats, t_feats),
        }

    def train_step(self, x, y):
        self.student.train()
        losses = self.compute_losses(x, y)
        total = sum(losses.values())
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()}


def main():
    torch.manual_seed(0)
    trainer = DistillationTrainer(Net(width=16), get_teacher())
    for step in range(4):
        x, y = torch.randn(8, 32), torch.randint(0, 10, (8,))
        print(step, trainer.train_step(x, y))


if __name__ == "__main__":
    main()
