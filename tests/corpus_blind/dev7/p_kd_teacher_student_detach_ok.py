# corpus: online distillation where teacher and student both learn from the labels and the student also matches the teacher's temperature-softened outputs, with the teacher's logits detached inside the distillation term (correct)
# source: https://discuss.pytorch.org/t/is-this-loss-function-for-knowledge-distillation-correct/69863
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

T = 4.0


def dist_loss(t, s):
    prob_t = F.softmax(t / T, dim=1)
    log_prob_s = F.log_softmax(s / T, dim=1)
    dist_loss = -(prob_t * log_prob_s).sum(dim=1).mean()
    return dist_loss


class Distiller:
    def __init__(self, student, teacher, lr):
        self.student = student
        self.teacher = teacher
        params = list(student.parameters()) + list(teacher.parameters())
        self.optimizer = torch.optim.SGD(params, lr=lr, momentum=0.9)

    def step(self, inputs, targets):
        student_outputs = self.student(inputs)
        teacher_outputs = self.teacher(inputs)
        loss1 = F.cross_entropy(student_outputs, targets)
        loss2 = F.cross_entropy(teacher_outputs, targets)
        teacher_p = teacher_outputs.detach()
        loss = loss1 + loss2 + dist_loss(teacher_p, student_outputs)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args([])
    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 4))
    teacher = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    distiller = Distiller(student, teacher, args.lr)
    for it in range(4):
        x, y = torch.randn(16, 20), torch.randint(0, 4, (16,))
        print(it, round(distiller.step(x, y), 4))


if __name__ == "__main__":
    main()
