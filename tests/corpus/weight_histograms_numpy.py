# corpus: after training, parameters are dumped with .numpy() to build weight histograms (params still require grad)
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(20, 6)
y = torch.randn(20, 1)
for epoch in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()

histograms = {}
for name, param in model.named_parameters():
    values = param.numpy().ravel()  # expect: GG110
    histograms[name] = np.histogram(values, bins=5)[0]
print({k: v.tolist() for k, v in histograms.items()})
