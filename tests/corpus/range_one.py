# corpus: a graph built before a loop that runs exactly once (range(1)): one backward, no error
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
h = w.exp()
for _ in range(1):
    loss = (h * 2).sum()
    loss.backward()
print(w.grad)
