# corpus: knowledge distillation where teacher_logits.detach() is called as a statement, so KL gradients flow into the teacher
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

teacher = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 5))
student = nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 5))
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
T = 4.0
alpha = 0.7

for step in range(4):
    x = torch.randn(16, 10)
    y = torch.randint(0, 5, (16,))
    teacher_logits = teacher(x)
    teacher_logits.detach()  # expect: GG112
    student_logits = student(x)
    kd = F.kl_div(F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1),
                  reduction="batchmean") * T * T
    loss = alpha * kd + (1 - alpha) * F.cross_entropy(student_logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
