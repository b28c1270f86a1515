# corpus: mean-teacher semi-supervised trainer: the EMA teacher's parameters have requires_grad off, its weights and BatchNorm buffers are averaged under torch.no_grad after each step, and its predictions are used as detached consistency targets (correct)
# source: https://github.com/CuriousAI/mean-teacher/issues/9
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, n_classes)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        return self.fc(x.mean(dim=(2, 3)))


def create_ema_model(model):
    ema_model = deepcopy(model)
    for param in ema_model.parameters():
        param.detach_()
        param.requires_grad_(False)
    return ema_model


@torch.no_grad()
def update_ema_variables(model, ema_model, alpha, global_step):
    alpha = min(1 - 1 / (global_step + 1), alpha)
    for ema_param, param in zip(ema_model.parameters(), model.parameters()):
        ema_param.mul_(alpha).add_(param, alpha=1 - alpha)
    for ema_buf, buf in zip(ema_model.buffers(), model.buffers()):
        if ema_buf.dtype.is_floating_point:
            ema_buf.mul_(alpha).add_(buf, alpha=1 - alpha)
        else:
            ema_buf.copy_(buf)


class MeanTeacherTrainer:
    def __init__(self, ema_decay=0.99, consistency=1.0):
        self.model = ConvNet()
        self.ema_model = create_ema_model(self.model)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05, momentum=0.9)
        self.ema_decay = ema_decay
        self.consistency = consistency
        self.global_step = 0

    def train_epoch(self, loader):
        self.model.train()
        self.ema_model.train()
        meter = 0.0
        for (x_student, x_teacher), target in loader:
            student_logits = self.model(x_student)
            with torch.no_grad():
                teacher_logits = self.ema_model(x_teacher)
            labeled = target >= 0
            class_loss = F.cross_entropy(student_logits[labeled], target[labeled])
            cons_loss = F.mse_loss(F.softmax(student_logits, 1), F.softmax(teacher_logits, 1))
            loss = class_loss + self.consistency * cons_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.global_step += 1
            update_ema_variables(self.model, self.ema_model, self.ema_decay, self.global_step)
            meter += loss.item()
        return meter / len(loader)


def make_loader(n=5):
    data = []
    for _ in range(n):
        x = torch.randn(8, 3, 8, 8)
        target = torch.randint(0, 4, (8,))
        target[4:] = -1  # unlabeled half
        data.append(((x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x)), target))
    return data


def main():
    torch.manual_seed(0)
    trainer = MeanTeacherTrainer()
    loader = make_loader()
    for epoch in range(2):
        print(f"epoch {epoch} loss {trainer.train_epoch(loader):.4f}")


if __name__ == "__main__":
    main()
