# corpus: curvature analysis builds the full Hessian of a loss w.r.t. a small parameter row by row with autograd.grad on the create_graph gradient, without retain_graph, so row 2 fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/pytorch/pull/1016
import torch
import torch.nn as nn
from torch.autograd import grad

torch.manual_seed(0)


class HessianAnalyzer:
    """Dense Hessian of the training loss w.r.t. the output layer bias."""

    def __init__(self, model, loss_fn):
        self.model = model
        self.loss_fn = loss_fn

    def loss_at(self, x, y):
        return self.loss_fn(self.model(x), y)

    def hessian(self, x, y, param):
        loss = self.loss_at(x, y)
        dparam, = grad(loss, param, create_graph=True)  # also: GG101
        rows = []
        for i in range(param.numel()):
            e_i = torch.zeros_like(dparam)
            e_i.view(-1)[i] = 1.0
            row, = grad(dparam, param, grad_outputs=e_i)  # expect: GG101
            rows.append(row.reshape(-1))
        return torch.stack(rows)

    def report(self, x, y):
        h = self.hessian(x, y, self.model[-1].bias)
        eig = torch.linalg.eigvalsh(h)
        return {"max_eig": eig.max().item(), "min_eig": eig.min().item()}


def main():
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    analyzer = HessianAnalyzer(model, nn.CrossEntropyLoss())
    x = torch.randn(16, 4)
    y = torch.randint(0, 3, (16,))
    print(analyzer.report(x, y))


if __name__ == "__main__":
    main()
