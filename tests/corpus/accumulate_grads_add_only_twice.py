# corpus: notebook cell checking that gradients accumulate: an add-only graph backpropagated twice (works)
import torch

torch.manual_seed(0)

w = torch.randn(4, requires_grad=True)
b = torch.randn(4, requires_grad=True)
out = (w + b + 1).sum()
out.backward()
out.backward()
assert torch.equal(w.grad, torch.full((4,), 2.0))
print("grad after two backward passes:", w.grad)

# then a few steps of ordinary training on the same leaves
opt = torch.optim.SGD([w, b], lr=0.1)
target = torch.ones(4)
for step in range(3):
    opt.zero_grad()
    loss = ((w * b - target) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item())
