# corpus: PCGrad-style gradient surgery: each task loss is backpropagated separately with retain_graph=True on purpose
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

shared = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
head1 = nn.Linear(16, 1)
head2 = nn.Linear(16, 1)
params = [*shared.parameters(), *head1.parameters(), *head2.parameters()]
optimizer = torch.optim.SGD(params, lr=0.01)
x = torch.randn(12, 8)
y1 = torch.randn(12, 1)
y2 = torch.randn(12, 1)


def flat_grad():
    return torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in params])


for step in range(3):
    h = shared(x)
    loss1 = F.mse_loss(head1(h), y1)
    loss2 = F.mse_loss(head2(h), y2)
    optimizer.zero_grad()
    loss1.backward(retain_graph=True)
    g1 = flat_grad().clone()
    optimizer.zero_grad()
    loss2.backward()
    g2 = flat_grad().clone()
    dot = torch.dot(g1, g2)
    if dot < 0:
        g1 = g1 - dot / g2.norm() ** 2 * g2
    merged = g1 + g2
    offset = 0
    for p in params:
        n = p.numel()
        p.grad = merged[offset:offset + n].view_as(p).clone()
        offset += n
    optimizer.step()
    print(step, loss1.item(), loss2.item(), dot.item())
