# corpus: non-scalar outputs backpropagated correctly: explicit gradient=, a [1]-shaped loss, and reduction="none" then mean
import torch
import torch.nn as nn

torch.manual_seed(0)

layer = nn.Linear(3, 2)
x = torch.randn(5, 3)

out = layer(x)
out.backward(gradient=torch.ones_like(out))
print("grad from explicit gradient:", layer.weight.grad.sum().item())

layer.zero_grad()
scores = layer(x)[:, :1].sum(dim=0)  # shape [1]
scores.backward()
print("grad from [1]-shaped output:", layer.weight.grad.sum().item())

criterion = nn.MSELoss(reduction="none")
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
target = torch.randn(5, 2)
mask = torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0]).unsqueeze(1)
for step in range(3):
    optimizer.zero_grad()
    per_elem = criterion(layer(x), target)
    loss = (per_elem * mask).sum() / mask.sum()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
