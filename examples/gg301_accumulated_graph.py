# gradguard reports GG301 (accumulated-graph) on line 17.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
x = torch.randn(32, 4)
y = torch.randn(32, 1)
running_loss = 0.0
for epoch in range(5):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    running_loss += loss
