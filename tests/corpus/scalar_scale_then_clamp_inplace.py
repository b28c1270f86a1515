# corpus: predictions scaled by a Python float for the loss, then clamped in place for a metric (mul by a scalar saves nothing)
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(5, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(20, 5)
y = torch.rand(20, 1) * 10
scale = 10.0

for epoch in range(4):
    optimizer.zero_grad()
    pred = model(x)
    scaled = pred * scale
    loss = nn.functional.mse_loss(scaled, y)
    pred.clamp_(min=0.0)
    within = ((pred * scale - y).abs() < 1.0).float().mean().item()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item(), within)
