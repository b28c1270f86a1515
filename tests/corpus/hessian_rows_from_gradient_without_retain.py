# corpus: a curvature probe takes the gradient with create_graph=True (grad imported from torch.autograd), then differentiates it once per row without retain_graph, so the second row's pass walks the gradient graph the first one freed
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
from torch.autograd import grad


def hessian(model, x, y, param):
    loss = nn.functional.mse_loss(model(x), y)
    g, = grad(loss, param, create_graph=True)
    rows = []
    for i in range(param.numel()):
        e_i = torch.zeros_like(g)
        e_i.view(-1)[i] = 1.0
        row, = grad(g, param, grad_outputs=e_i)  # expect: GG101
        rows.append(row.reshape(-1))
    return torch.stack(rows)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2))
print(hessian(model, torch.randn(5, 3), torch.randn(5, 2), model[-1].bias))
