# corpus: loss built with grad enabled, then backward and the update both run inside a torch.no_grad() block (works)
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(3, 1)
criterion = nn.MSELoss()
x = torch.randn(12, 3)
y = x.sum(dim=1, keepdim=True)
lr = 0.1

for step in range(5):
    loss = criterion(model(x), y)
    with torch.no_grad():
        loss.backward()
        for p in model.parameters():
            p -= lr * p.grad
            p.grad = None
    print(step, loss.item())
