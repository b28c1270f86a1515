# corpus: correct deep-equilibrium layer (implicit-layers tutorial style): the fixed point is found under no_grad, then one f(z*, x) call re-engages the tape and a backward hook solves the implicit-function adjoint with autograd.grad(retain_graph=True) on a separate small graph
# source: https://github.com/locuslab/deq/issues/11
import torch
import torch.nn as nn


def fixed_point_iter(f, z0, max_iter=40, tol=1e-5):
    z = z0
    for k in range(max_iter):
        z_next = f(z)
        if (z_next - z).norm() / (z_next.norm() + 1e-8) < tol:
            return z_next, k + 1
        z = z_next
    return z, max_iter


class TanhCell(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W = nn.Linear(dim, dim, bias=False)
        self.U = nn.Linear(dim, dim)
        nn.init.normal_(self.W.weight, std=0.05)

    def forward(self, z, x):
        return torch.tanh(self.W(z) + self.U(x))


class DEQFixedPoint(nn.Module):
    def __init__(self, f, max_iter=40):
        super().__init__()
        self.f = f
        self.max_iter = max_iter
        self.forward_iters = 0
        self.backward_iters = 0

    def forward(self, x):
        with torch.no_grad():
            z, self.forward_iters = fixed_point_iter(lambda z: self.f(z, x), torch.zeros_like(x), self.max_iter)
        z = self.f(z, x)

        z0 = z.clone().detach().requires_grad_()
        f0 = self.f(z0, x)

        def backward_hook(grad):
            g, self.backward_iters = fixed_point_iter(
                lambda y: torch.autograd.grad(f0, z0, y, retain_graph=True)[0] + grad, grad, self.max_iter)
            return g

        if z.requires_grad:
            z.register_hook(backward_hook)
        return z


class SteadyStateTrainer:
    def __init__(self, dim=6):
        self.model = DEQFixedPoint(TanhCell(dim))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-2)
        self.criterion = nn.MSELoss()

    def step(self, forcing, target):
        self.optimizer.zero_grad()
        z_star = self.model(forcing)
        loss = self.criterion(z_star, target)
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.item(), "fwd": self.model.forward_iters, "bwd": self.model.backward_iters}


def main():
    torch.manual_seed(0)
    trainer = SteadyStateTrainer()
    forcing = torch.randn(16, 6)
    target = torch.tanh(0.5 * forcing)
    for epoch in range(5):
        print(epoch, trainer.step(forcing, target))


if __name__ == "__main__":
    main()
