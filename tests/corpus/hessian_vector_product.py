# corpus: Hessian-vector product via double backprop (create_graph=True), then a second backward on g.v
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
params = list(model.parameters())
x = torch.randn(10, 4)
y = torch.randn(10, 1)

loss = nn.functional.mse_loss(model(x), y)
grads = torch.autograd.grad(loss, params, create_graph=True)
vec = [torch.randn_like(p) for p in params]
gv = sum((g * v).sum() for g, v in zip(grads, vec))
gv.backward()
hvp = [p.grad.clone() for p in params]
print("HVP norms:", [round(h.norm().item(), 4) for h in hvp])
