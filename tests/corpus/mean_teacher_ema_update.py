# corpus: mean-teacher semi-supervised training; teacher params updated in place under no_grad, teacher outputs without grad
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

student = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
teacher = copy.deepcopy(student)
for p in teacher.parameters():
    p.requires_grad_(False)
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
ema_decay = 0.99

for step in range(4):
    labeled, labels = torch.randn(8, 6), torch.randint(0, 3, (8,))
    unlabeled = torch.randn(16, 6)
    sup = F.cross_entropy(student(labeled), labels)
    with torch.no_grad():
        teacher_probs = F.softmax(teacher(unlabeled + 0.1 * torch.randn_like(unlabeled)), dim=1)
    cons = F.mse_loss(F.softmax(student(unlabeled), dim=1), teacher_probs)
    loss = sup + 0.5 * cons
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        for t_p, s_p in zip(teacher.parameters(), student.parameters()):
            t_p.mul_(ema_decay).add_(s_p, alpha=1 - ema_decay)
    print(step, sup.item(), cons.item())
