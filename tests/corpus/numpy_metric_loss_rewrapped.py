# corpus: loss computed in numpy (custom metric) and wrapped back with torch.from_numpy before backward
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(16, 4)
y = torch.randn(16, 1)


def huber_np(pred, target, delta=1.0):
    err = np.abs(pred - target)
    return np.where(err < delta, 0.5 * err ** 2, delta * (err - 0.5 * delta)).mean()


for step in range(2):
    optimizer.zero_grad()
    pred = model(x)
    loss = torch.from_numpy(np.asarray(huber_np(pred.detach().numpy(), y.numpy())))
    loss.backward()  # expect: GG106
    optimizer.step()
    print(step, loss.item())
