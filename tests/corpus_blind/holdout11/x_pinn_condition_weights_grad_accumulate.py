# corpus: heat-equation PINN with NTK-style loss weighting; per-condition gradient norms come from backward() into .grad without clearing it in between, so every condition after the first reads the sum of all previous gradients
# source: https://github.com/PINA-org/PINA/issues/718
import torch
import torch.nn as nn


class PINN(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def heat_residual(model, x, t, k=0.1):
    u = model(x, t)
    u_t = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]
    u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
    return u_t - k * u_xx


class NTKWeighting:
    def __init__(self, model, conditions, alpha=0.5):
        self.model = model
        self.weights = {name: 1.0 for name in conditions}
        self.alpha = alpha

    def grad_norm(self):
        return torch.sqrt(sum((p.grad ** 2).sum() for p in self.model.parameters() if p.grad is not None))

    def update(self, losses):
        norms = {}
        for name, loss in losses.items():
            loss.backward(retain_graph=True)  # expect: GG201
            norms[name] = self.grad_norm().item()  # also: GG201
        total = sum(norms.values())
        for name in losses:
            new_w = total / (norms[name] + 1e-8)
            self.weights[name] = self.alpha * self.weights[name] + (1 - self.alpha) * new_w
        return norms


class Solver:
    def __init__(self, n=16):
        self.model = PINN()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.criterion = nn.MSELoss()
        self.x_pde = torch.rand(n, 1, requires_grad=True)
        self.t_pde = torch.rand(n, 1, requires_grad=True)
        self.x_ic = torch.rand(n, 1)
        self.x_bc = torch.randint(0, 2, (n, 1)).float()
        self.t_bc = torch.rand(n, 1)
        self.weighting = NTKWeighting(self.model, ["pde", "initial", "boundary"])

    def condition_losses(self):
        r = heat_residual(self.model, self.x_pde, self.t_pde)
        u0 = self.model(self.x_ic, torch.zeros_like(self.x_ic))
        ub = self.model(self.x_bc, self.t_bc)
        return {"pde": self.criterion(r, torch.zeros_like(r)),
                "initial": self.criterion(u0, torch.sin(torch.pi * self.x_ic)),
                "boundary": self.criterion(ub, torch.zeros_like(ub))}

    def train_step(self):
        losses = self.condition_losses()
        norms = self.weighting.update(losses)
        total = sum(self.weighting.weights[n] * l for n, l in losses.items())
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return total.item(), norms


def main():
    torch.manual_seed(0)
    solver = Solver()
    for it in range(3):
        total, norms = solver.train_step()
        print(it, round(total, 4), {k: round(v, 4) for k, v in norms.items()})


if __name__ == "__main__":
    main()
