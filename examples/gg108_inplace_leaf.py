# gradguard reports GG108 (inplace-on-leaf) on line 11.
import torch

torch.manual_seed(0)
w = torch.randn(3, 1, requires_grad=True)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
for step in range(3):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    w -= 0.1 * w.grad
    w.grad.zero_()
