# corpus: gradient-norm logging with torch.autograd.grad before the real backward on the same loss
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
inputs = torch.randn(16, 10)
labels = torch.randint(0, 3, (16,))

for step in range(5):
    opt.zero_grad()
    logits = model(inputs)
    loss = F.cross_entropy(logits, labels)
    grads = torch.autograd.grad(loss, list(model.parameters()))
    gnorm = torch.sqrt(sum((g ** 2).sum() for g in grads))
    print(f"step {step}: loss={loss.item():.3f} |g|={gnorm.item():.3f}")
    loss.backward()  # expect: GG101
    opt.step()
