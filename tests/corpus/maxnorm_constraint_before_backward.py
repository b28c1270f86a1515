# corpus: max-norm constraint applied through .data between the forward pass and backward (silently wrong gradients)
import torch
import torch.nn as nn

torch.manual_seed(0)

hidden = nn.Linear(6, 12)
output = nn.Linear(12, 1)
optimizer = torch.optim.SGD([*hidden.parameters(), *output.parameters()], lr=0.05)
x = torch.randn(24, 6)
y = torch.randn(24, 1)
max_norm = 0.5

for epoch in range(4):
    optimizer.zero_grad()
    pred = output(torch.relu(hidden(x)))
    loss = ((pred - y) ** 2).mean()
    norms = output.weight.data.norm(dim=1, keepdim=True).clamp(min=max_norm)
    output.weight.data.mul_(max_norm / norms)  # expect: GG203
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
