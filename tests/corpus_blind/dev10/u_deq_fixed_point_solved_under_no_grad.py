# corpus: deep-equilibrium implicit layer whose fixed point is the prediction; the solver runs under torch.no_grad() and the tape is never re-engaged with one more f(z*, x) call, so the loss has no grad_fn
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/locuslab/torchdeq/issues/8
import torch
import torch.nn as nn


def anderson_like_solver(f, z0, max_iter=30, tol=1e-4, beta=0.8):
    z = z0
    for k in range(max_iter):
        z_next = (1 - beta) * z + beta * f(z)
        if (z_next - z).norm() / (z.norm() + 1e-8) < tol:
            return z_next, k + 1
        z = z_next
    return z, max_iter


class EquilibriumCell(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W = nn.Linear(dim, dim, bias=False)
        self.U = nn.Linear(dim, dim)
        nn.init.normal_(self.W.weight, std=0.05)

    def forward(self, z, x):
        return torch.tanh(self.W(z) + self.U(x))


class DEQLayer(nn.Module):
    def __init__(self, dim, max_iter=30):
        super().__init__()
        self.f = EquilibriumCell(dim)
        self.max_iter = max_iter
        self.last_iters = 0

    def forward(self, x):
        with torch.no_grad():
            z_star, self.last_iters = anderson_like_solver(lambda z: self.f(z, x), torch.zeros_like(x), self.max_iter)  # expect: GG106
        return z_star


class SteadyStateTrainer:
    """Fit the cell so that its equilibrium matches observed steady states."""

    def __init__(self, dim=6):
        self.model = DEQLayer(dim)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-2)
        self.criterion = nn.MSELoss()

    def step(self, forcing, steady_state):
        self.optimizer.zero_grad()
        z_star = self.model(forcing)
        loss = self.criterion(z_star, steady_state)
        loss.backward()  # also: GG106
        self.optimizer.step()
        return {"loss": loss.item(), "solver_iters": self.model.last_iters}


def main():
    torch.manual_seed(0)
    trainer = SteadyStateTrainer()
    forcing = torch.randn(16, 6)
    steady = torch.tanh(0.5 * forcing)
    for epoch in range(5):
        stats = trainer.step(forcing, steady)
        print(epoch, stats)


if __name__ == "__main__":
    main()
