# corpus: magnitude pruning that re-applies the weight mask in place after each step, outside torch.no_grad()
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
first = model[0]
threshold = first.weight.detach().abs().median()
mask = (first.weight.detach().abs() >= threshold).float()
x = torch.randn(32, 8)
y = torch.randn(32, 1)

for epoch in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    first.weight.mul_(mask)  # expect: GG108
    print(epoch, loss.item(), int(mask.sum().item()))
