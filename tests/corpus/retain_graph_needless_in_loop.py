# corpus: cargo-culted retain_graph=True in a loop whose forward pass is rebuilt every iteration (harmless)
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(4, 8), nn.Sigmoid(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
X = torch.randn(20, 4)
Y = X.sum(dim=1, keepdim=True)

for epoch in range(5):
    optimizer.zero_grad()
    out = model(X)
    loss = ((out - Y) ** 2).mean()
    loss.backward(retain_graph=True)
    optimizer.step()
    print(epoch, loss.item())
