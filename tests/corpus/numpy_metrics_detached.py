# corpus: regression with numpy metrics taken from .detach().cpu().numpy() and from outputs under no_grad
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)

net = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
X = torch.randn(50, 2)
Y = (X[:, :1] * X[:, 1:]).clone()
curve = []

for epoch in range(5):
    opt.zero_grad()
    pred = net(X)
    loss = ((pred - Y) ** 2).mean()
    loss.backward()
    opt.step()
    curve.append(loss.detach().cpu().numpy())
    residuals = (pred - Y).detach().cpu().numpy()
    print(epoch, float(np.abs(residuals).mean()))

with torch.no_grad():
    final = net(X).numpy()
weights = net[0].weight.detach().numpy().copy()
print(np.array(curve).shape, final.shape, weights.shape, np.corrcoef(final[:, 0], Y.numpy()[:, 0])[0, 1])
