# corpus: loss history kept as detached tensors (total + loss.detach(), append(loss.detach().cpu())) for logging
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.MSELoss()
xs = torch.randn(40, 6)
ys = torch.randn(40, 1)
history = []
total = torch.zeros(())

for step in range(8):
    idx = torch.randint(0, 40, (10,))
    optimizer.zero_grad()
    loss = criterion(model(xs[idx]), ys[idx])
    loss.backward()
    optimizer.step()
    total = total + loss.detach()
    history.append(loss.detach().cpu())

print("mean", (total / 8).item(), "last", history[-1].item(), len(history))
