# corpus: manual gradient descent that records the weight trajectory with .numpy() for later plotting
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
import numpy as np
import torch

torch.manual_seed(0)

A = torch.randn(20, 2)
b = A @ torch.tensor([0.5, -1.0])
w = torch.zeros(2, requires_grad=True)
lr = 0.05
trajectory = []

for it in range(15):
    residual = A @ w - b
    loss = 0.5 * (residual ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        w.grad.zero_()
    trajectory.append(w.numpy())  # expect: GG110

path = np.stack(trajectory)
print(path.shape, loss.item())
