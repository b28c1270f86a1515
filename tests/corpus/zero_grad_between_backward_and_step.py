# corpus: regression loop with optimizer.zero_grad() placed between backward and step (weights never move)
import torch
import torch.nn as nn

torch.manual_seed(0)

net = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
criterion = nn.SmoothL1Loss()
inputs = torch.randn(30, 3)
targets = inputs.pow(2).sum(dim=1, keepdim=True)

for epoch in range(5):
    preds = net(inputs)
    loss = criterion(preds, targets)
    loss.backward()
    optimizer.zero_grad()  # expect: GG201
    optimizer.step()
    print(epoch, loss.item())
