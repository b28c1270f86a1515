# corpus: two batches per step, each with its own forward; the name loss is rebound before the second backward (fine)
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(5, 10), nn.Sigmoid(), nn.Linear(10, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
source = (torch.randn(8, 5), torch.randn(8, 1))
target = (torch.randn(8, 5), torch.randn(8, 1))

for step in range(4):
    optimizer.zero_grad()
    loss = criterion(model(source[0]), source[1])
    loss.backward()
    loss = 0.5 * criterion(model(target[0]), target[1])
    loss.backward()
    optimizer.step()
    if step % 2 == 0:
        print(step, loss.item())
