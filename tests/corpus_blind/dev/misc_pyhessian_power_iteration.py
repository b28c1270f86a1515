# corpus: PyHessian-style top-eigenvalue analysis: gradients with create_graph=True, then repeated Hessian-vector products with retain_graph=True in a power-iteration loop (correct)
# source: https://github.com/amirgholami/PyHessian/issues/12
import torch
import torch.nn as nn

torch.manual_seed(0)


def group_product(xs, ys):
    return sum(torch.sum(x * y) for x, y in zip(xs, ys))


def normalization(vs):
    norm = torch.sqrt(group_product(vs, vs))
    return [v / (norm + 1e-6) for v in vs]


def hessian_vector_product(gradsH, params, v):
    return torch.autograd.grad(gradsH, params, grad_outputs=v, only_inputs=True, retain_graph=True)


class Hessian:
    def __init__(self, model, criterion, data):
        self.model = model.eval()
        self.criterion = criterion
        inputs, targets = data
        loss = self.criterion(self.model(inputs), targets)
        self.params = [p for p in self.model.parameters() if p.requires_grad]
        self.gradsH = torch.autograd.grad(loss, self.params, create_graph=True)

    def eigenvalues(self, max_iter=100, tol=1e-6):
        v = normalization([torch.randn_like(p) for p in self.params])
        eigenvalue = None
        for _ in range(max_iter):
            Hv = hessian_vector_product(self.gradsH, self.params, v)
            tmp = group_product(Hv, v).item()
            v = normalization([h.detach() for h in Hv])
            if eigenvalue is not None and abs(eigenvalue - tmp) / (abs(eigenvalue) + 1e-6) < tol:
                eigenvalue = tmp
                break
            eigenvalue = tmp
        return eigenvalue


def main():
    model = nn.Linear(3, 1)
    x = torch.randn(32, 3)
    y = torch.randn(32, 1)
    hessian_comp = Hessian(model, nn.MSELoss(), (x, y))
    top = hessian_comp.eigenvalues()

    # for MSE on a linear model the Hessian is 2/n * A^T A with A = [x, 1]
    a = torch.cat([x, torch.ones(32, 1)], dim=1)
    exact = torch.linalg.eigvalsh(2.0 / 32 * a.T @ a).max().item()
    assert abs(top - exact) / exact < 1e-3
    assert all(p.grad is None for p in model.parameters())  # analysis left no .grad behind
    assert all(g.grad_fn is not None for g in hessian_comp.gradsH)


if __name__ == "__main__":
    main()
