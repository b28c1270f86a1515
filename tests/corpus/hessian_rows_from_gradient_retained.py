# corpus: the same curvature probe keeping the gradient graph for every row (retain_graph=True: the passes are wanted, and nothing changes the weights between them)
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
        row, = grad(g, param, grad_outputs=e_i, retain_graph=True)
        rows.append(row.reshape(-1))
    return torch.stack(rows)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2))
print(hessian(model, torch.randn(5, 3), torch.randn(5, 2), model[-1].bias))
