# corpus: regression script with a to_numpy helper used on model outputs for metrics
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


def to_numpy(t):
    return t.cpu().numpy()  # expect: GG110


def r2_score(pred, target):
    ss_res = np.sum((target - pred) ** 2)
    ss_tot = np.sum((target - target.mean()) ** 2)
    return 1 - ss_res / ss_tot


model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
X = torch.randn(40, 3)
Y = X @ torch.tensor([[1.0], [2.0], [-1.0]])

for epoch in range(3):
    optimizer.zero_grad()
    pred = model(X)
    loss = ((pred - Y) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item(), r2_score(to_numpy(pred), to_numpy(Y)))
