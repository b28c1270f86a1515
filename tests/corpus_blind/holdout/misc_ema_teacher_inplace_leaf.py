# corpus: distillation trainer deep-copies the student into an EMA teacher without freezing it, then updates the teacher parameters in place outside no_grad
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/wandb/senpai/pull/2318
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SurrogateMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 32), nn.SiLU(), nn.Linear(32, 2))

    def forward(self, x):
        return self.net(x)


class EMADistillTrainer:
    def __init__(self, model, decay=0.999, distill_weight=0.5):
        self.model = model
        self.teacher_model = copy.deepcopy(self.model)
        self.teacher_model.eval()
        self.decay = decay
        self.distill_weight = distill_weight
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

    def update_teacher(self):
        for t_p, s_p in zip(self.teacher_model.parameters(), self.model.parameters()):
            t_p.mul_(self.decay).add_(s_p.detach(), alpha=1 - self.decay)  # expect: GG108

    def train_step(self, x, y):
        student_pred = self.model(x)
        with torch.no_grad():
            teacher_pred = self.teacher_model(x)
        distill_loss = F.l1_loss(student_pred, teacher_pred)
        loss = F.mse_loss(student_pred, y) + self.distill_weight * distill_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.update_teacher()
        return loss.item()


def main():
    trainer = EMADistillTrainer(SurrogateMLP())
    for _ in range(3):
        trainer.train_step(torch.randn(16, 5), torch.randn(16, 2))


if __name__ == "__main__":
    main()
