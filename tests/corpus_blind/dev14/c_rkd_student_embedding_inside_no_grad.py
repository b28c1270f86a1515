# corpus: relational knowledge distillation for metric learning (RKD shape): the training step forwards the teacher and, by mistake, the student inside the same torch.no_grad() block, so the RKD distance and angle losses are built from embeddings without grad_fn and loss.backward() has no graph to walk
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/lenscloth/RKD/issues/16
import torch
import torch.nn as nn
import torch.nn.functional as F


def pdist(e, squared=False, eps=1e-12):
    e_square = e.pow(2).sum(dim=1)
    prod = e @ e.t()
    res = (e_square.unsqueeze(1) + e_square.unsqueeze(0) - 2 * prod).clamp(min=eps)
    if not squared:
        res = res.sqrt()
    res = res.clone()
    res[range(len(e)), range(len(e))] = 0
    return res


class RkdDistance(nn.Module):
    def forward(self, student, teacher):
        with torch.no_grad():
            t_d = pdist(teacher)
            t_d = t_d / t_d[t_d > 0].mean()
        d = pdist(student)
        d = d / d[d > 0].mean()
        return F.smooth_l1_loss(d, t_d)


class RKdAngle(nn.Module):
    def forward(self, student, teacher):
        with torch.no_grad():
            td = teacher.unsqueeze(0) - teacher.unsqueeze(1)
            t_angle = torch.bmm(F.normalize(td, p=2, dim=2), F.normalize(td, p=2, dim=2).transpose(1, 2)).view(-1)
        sd = student.unsqueeze(0) - student.unsqueeze(1)
        norm_sd = F.normalize(sd, p=2, dim=2)
        s_angle = torch.bmm(norm_sd, norm_sd.transpose(1, 2)).view(-1)
        return F.smooth_l1_loss(s_angle, t_angle)


class Embedder(nn.Module):
    def __init__(self, in_dim=32, hidden=64, embed=16):
        super().__init__()
        self.base = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.embedding = nn.Linear(hidden, embed)

    def forward(self, x):
        return F.normalize(self.embedding(self.base(x)), dim=1)


def train_epoch(student, teacher, loader, optimizer, dist_criterion, angle_criterion, dist_ratio=1.0, angle_ratio=2.0):
    student.train()
    teacher.eval()
    losses = []
    for images, labels in loader:
        with torch.no_grad():
            t_e = teacher(images)
            e = student(images)  # also: GG106
        dist_loss = dist_ratio * dist_criterion(e, t_e)
        angle_loss = angle_ratio * angle_criterion(e, t_e)
        loss = dist_loss + angle_loss
        optimizer.zero_grad()
        loss.backward()  # expect: GG106
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    teacher, student = Embedder(hidden=128), Embedder(hidden=32)
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-4, weight_decay=1e-5)
    loader = [(torch.randn(16, 32), torch.randint(0, 4, (16,))) for _ in range(4)]
    for epoch in range(2):
        print("epoch", epoch, "rkd loss", round(train_epoch(student, teacher, loader, optimizer, RkdDistance(), RKdAngle()), 5))


if __name__ == "__main__":
    main()
