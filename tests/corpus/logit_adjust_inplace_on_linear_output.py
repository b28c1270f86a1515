# corpus: classifier that suppresses a forbidden class by writing into the final Linear's output in place (works)
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
x = torch.randn(10, 6)
y = torch.randint(1, 4, (10,))

for step in range(3):
    optimizer.zero_grad()
    logits = model(x)
    logits[:, 0] = -1e4
    shifted = logits + 0.5
    shifted.mul_(2.0)
    loss = criterion(shifted, y)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
