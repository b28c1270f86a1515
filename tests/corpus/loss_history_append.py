# corpus: training loop that appends the loss tensor itself to a history list for a later summary
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
data = torch.randn(40, 10)
labels = torch.randint(0, 4, (40,))
history = []

for step in range(10):
    idx = torch.randint(0, 40, (8,))
    optimizer.zero_grad()
    loss = F.cross_entropy(model(data[idx]), labels[idx])
    loss.backward()
    optimizer.step()
    history.append(loss)  # expect: GG301

print("mean loss", torch.stack(history).mean().item())
assert all(h.grad_fn is not None for h in history)  # ground truth: every step's graph is kept alive
