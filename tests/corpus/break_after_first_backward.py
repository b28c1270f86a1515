# corpus: a pre-loop graph backpropagated in a loop that always breaks after the first pass
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
h = w.sigmoid()
for step in range(5):
    loss = (h * h).sum()
    loss.backward()
    break
print(w.grad)
