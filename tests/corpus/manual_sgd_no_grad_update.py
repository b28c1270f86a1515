# corpus: logistic regression by hand with leaf tensors, updated under torch.no_grad() and grads zeroed in place
import torch

torch.manual_seed(0)

X = torch.randn(80, 3)
y = (X @ torch.tensor([1.0, -1.0, 0.5]) > 0).float()
w = torch.zeros(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.5

for epoch in range(15):
    logits = X @ w + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y)
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if epoch % 5 == 0:
        print(epoch, loss.item())
