# corpus: PINN for the decay ODE du/dt = -k u whose derivative du/dt comes from torch.autograd.grad with retain_graph=True but without create_graph=True, so du/dt is a constant and the physics loss only trains through the k*u term (silently wrong gradients)
# source: https://discuss.pytorch.org/t/how-to-backprop-a-loss-with-a-partial-derivative-on-it-behind-backward/152160
import torch
import torch.nn as nn


class DecayPINN(nn.Module):
    def __init__(self, width=20):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1))

    def forward(self, t):
        return self.net(t)


def time_derivative(u, t):
    return torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), retain_graph=True)[0]  # expect: GG202


class PINNTrainer:
    def __init__(self, k=1.5, u0=1.0, n_colloc=32):
        self.model = DecayPINN()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.k, self.u0 = k, u0
        self.t_colloc = torch.linspace(0, 2, n_colloc).unsqueeze(1)
        self.t0 = torch.zeros(1, 1)

    def losses(self):
        t = self.t_colloc.clone().requires_grad_(True)
        u = self.model(t)
        u_t = time_derivative(u, t)
        residual = u_t + self.k * u
        return {
            "pde": residual.pow(2).mean(),
            "ic": (self.model(self.t0) - self.u0).pow(2).mean(),
        }

    def train(self, epochs=50):
        for epoch in range(epochs):
            self.optimizer.zero_grad()
            parts = self.losses()
            loss = parts["pde"] + parts["ic"]
            loss.backward()
            self.optimizer.step()
            if epoch % 10 == 0:
                print(epoch, {k: round(v.item(), 5) for k, v in parts.items()})


def main():
    torch.manual_seed(0)
    PINNTrainer().train()


if __name__ == "__main__":
    main()
