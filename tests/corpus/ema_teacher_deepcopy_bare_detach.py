# corpus: a mean-teacher trainer deep-copies the student as its EMA teacher and "detaches" the teacher's logits with a bare .detach() call, so gradients flow into the teacher
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class MeanTeacher:
    def __init__(self, model):
        self.model = model
        self.teacher = copy.deepcopy(model)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def targets(self, x):
        logits = self.teacher(x)
        logits.detach()  # expect: GG112
        return torch.softmax(logits, dim=1)

    def step(self, x):
        consistency = F.mse_loss(torch.softmax(self.model(x), dim=1), self.targets(x))
        self.optimizer.zero_grad()
        consistency.backward()
        self.optimizer.step()


torch.manual_seed(0)
trainer = MeanTeacher(nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)))
for _ in range(2):
    trainer.step(torch.randn(4, 6))
assert all(p.grad is not None for p in trainer.teacher.parameters())
