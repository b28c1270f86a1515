# corpus: linear regression by hand with leaf tensors, updating the weights in place without torch.no_grad()
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
import torch

torch.manual_seed(0)

X = torch.randn(50, 3)
true_w = torch.tensor([1.5, -2.0, 0.7])
y = X @ true_w + 0.1 * torch.randn(50)

w = torch.zeros(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1

for epoch in range(20):
    pred = X @ w + b
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    w -= lr * w.grad  # expect: GG108
    b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    print(epoch, loss.item())
