# gradguard reports GG201 (zero-grad-missing-or-misplaced) on line 13.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
x = torch.randn(32, 4)
y = torch.randn(32, 1)
for epoch in range(5):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
