# corpus: PINN for du/dt = -k u whose du/dt comes from autograd.grad(retain_graph=True) without create_graph, so the ODE residual's derivative term trains nothing
# source: https://github.com/PennyLaneAI/pennylane/issues/3146
import torch
import torch.nn as nn

torch.manual_seed(0)


class ODENet(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(1, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, 1),
        )

    def forward(self, t):
        return self.body(t)


def time_derivative(u, t):
    # retain_graph so that u can still be used in the residual afterwards
    return torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), retain_graph=True)[0]  # expect: GG202


class DecaySolver:
    def __init__(self, net, k=2.0, lr=1e-2):
        self.net = net
        self.k = k
        self.opt = torch.optim.Adam(net.parameters(), lr=lr)
        self.history = []

    def compute_losses(self, t_col, t0, u0):
        u = self.net(t_col)
        du_dt = time_derivative(u, t_col)
        residual = du_dt + self.k * u
        return {
            "ic": ((self.net(t0) - u0) ** 2).mean(),
            "ode": (residual ** 2).mean(),  # also: GG202
        }

    def step(self, t_col, t0, u0):
        losses = self.compute_losses(t_col, t0, u0)
        total = losses["ic"] + losses["ode"]
        self.opt.zero_grad()
        total.backward()  # also: GG202
        self.opt.step()
        self.history.append({name: value.item() for name, value in losses.items()})


def main():
    net = ODENet()
    solver = DecaySolver(net)
    t_col = torch.linspace(0.0, 1.0, 32).unsqueeze(1).requires_grad_(True)
    t0 = torch.zeros(1, 1)
    u0 = torch.ones(1, 1)
    for _ in range(20):
        solver.step(t_col, t0, u0)

    # ground truth: the derivative is a constant for autograd, so the ODE loss
    # gradient differs from the one with the real d/dt term
    t = t_col.detach().clone().requires_grad_(True)
    first = net.body[0].weight
    u = net(t)
    du_ref = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]
    g_ref = torch.autograd.grad(((du_ref + solver.k * u) ** 2).mean(), first)[0]
    u2 = net(t)
    du_bug = time_derivative(u2, t)
    g_bug = torch.autograd.grad(((du_bug + solver.k * u2) ** 2).mean(), first)[0]
    assert du_bug.grad_fn is None and not du_bug.requires_grad  # ground truth: derivative carries no graph
    assert not torch.allclose(g_ref, g_bug, atol=1e-6)  # ground truth: physics gradient is wrong
    assert all(isinstance(h["ode"], float) for h in solver.history)


if __name__ == "__main__":
    main()
