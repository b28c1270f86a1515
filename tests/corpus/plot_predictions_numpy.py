# corpus: curve-fitting script that collects predictions with .numpy() for a matplotlib-style plot
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)

xs = torch.linspace(-2, 2, 30).unsqueeze(1)
ys = torch.sin(xs) + 0.05 * torch.randn(30, 1)
net = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()

for epoch in range(5):
    opt.zero_grad()
    out = net(xs)
    loss = loss_fn(out, ys)
    loss.backward()
    opt.step()

pred_curve = net(xs).numpy()  # expect: GG110
err = np.abs(pred_curve - ys.numpy()).max()
print("max abs error", err)
