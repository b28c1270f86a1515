# corpus: gradient-norm logging with autograd.grad(retain_graph=True) before the real backward (correct use of retain_graph)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(12, 10)
y = torch.randint(0, 3, (12,))

for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    grads = torch.autograd.grad(loss, list(model.parameters()), retain_graph=True)
    gnorm = torch.sqrt(sum((g ** 2).sum() for g in grads)).item()
    loss.backward()
    opt.step()
    print(f"step {step}: loss={loss.item():.3f} |g|={gnorm:.3f}")
