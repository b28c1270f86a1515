# corpus: two-layer MLP from raw leaf tensors made with (randn * scale).requires_grad_(), trained with torch.optim.SGD
import torch

torch.manual_seed(0)

W1 = (torch.randn(4, 16) * 0.1).requires_grad_()
b1 = torch.zeros(16, requires_grad=True)
W2 = (torch.randn(16, 1) * 0.1).requires_grad_()
b2 = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([W1, b1, W2, b2], lr=0.05)
X = torch.randn(32, 4)
Y = (X ** 2).sum(dim=1, keepdim=True)

for epoch in range(10):
    hidden = torch.relu(X @ W1 + b1)
    pred = hidden @ W2 + b2
    loss = ((pred - Y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 3 == 0:
        print(epoch, loss.item(), W1.grad.abs().mean().item())
