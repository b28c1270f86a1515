# corpus: one loop calling zero_grad after step (grads start empty), then one clearing grads with p.grad = None
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
x = torch.randn(16, 4)
y = torch.randint(0, 2, (16,))

for epoch in range(3):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print("b", epoch, loss.item())

for epoch in range(3):
    for p in model.parameters():
        p.grad = None
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    print("a", epoch, loss.item())
