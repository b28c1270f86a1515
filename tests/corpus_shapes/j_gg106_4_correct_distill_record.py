# corpus: correct: distillation Trainer detaches only the teacher's targets and stores loss.item() in a StepLog dataclass after backward on the tensor
# source: docs/rules/GG106.md (shape: 4, 1)
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class StepLog:
    step: int
    loss: float


class DistillTrainer:
    def __init__(self, student, teacher, optimizer):
        self.student = student
        self.teacher = teacher
        self.optimizer = optimizer
        self.logs = []

    def compute_loss(self, x):
        soft_targets = F.softmax(self.teacher(x), dim=1).detach()
        return F.kl_div(F.log_softmax(self.student(x), dim=1), soft_targets, reduction="batchmean")

    def train_step(self, step, x):
        loss = self.compute_loss(x)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.logs.append(StepLog(step=step, loss=loss.item()))

    def fit(self, batches):
        for step, x in enumerate(batches):
            self.train_step(step, x)
        return self.logs


torch.manual_seed(0)
teacher = nn.Linear(6, 4)
student = nn.Linear(6, 4)
trainer = DistillTrainer(student, teacher, torch.optim.SGD(student.parameters(), lr=0.1))
print(trainer.fit([torch.randn(5, 6) for _ in range(3)]))
