# corpus: Navier-Stokes PINN (stream function psi, pressure p) trained with an LBFGS closure; every derivative is taken with create_graph=True, so the residual terms f and g really train the network
# source: https://github.com/ComputationalDomain/PINNs/issues/1
import torch
import torch.nn as nn

nu = 0.01


class ResNet(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module
        self.tanh = nn.Tanh()

    def forward(self, inputs):
        return self.tanh(self.module(inputs)) + inputs


class NavierStokes:
    def __init__(self, X, Y, T, u, v):
        self.x = X.clone().requires_grad_(True)
        self.y = Y.clone().requires_grad_(True)
        self.t = T.clone().requires_grad_(True)
        self.u, self.v = u, v
        self.null = torch.zeros((self.x.shape[0], 1))
        self.network()
        self.optimizer = torch.optim.LBFGS(self.net.parameters(), lr=1, max_iter=4, history_size=10,
                                           line_search_fn="strong_wolfe")
        self.mse = nn.MSELoss()
        self.ls = 0
        self.iter = 0

    def network(self):
        self.net = nn.Sequential(nn.Linear(3, 16), ResNet(nn.Linear(16, 16)), ResNet(nn.Linear(16, 16)), nn.Linear(16, 2))

    def d(self, out, wrt):
        return torch.autograd.grad(out, wrt, grad_outputs=torch.ones_like(out), create_graph=True)[0]

    def function(self, x, y, t):
        res = self.net(torch.hstack((x, y, t)))
        psi, p = res[:, 0:1], res[:, 1:2]
        u = self.d(psi, y)
        v = -1.0 * self.d(psi, x)
        u_x, u_y, u_t = self.d(u, x), self.d(u, y), self.d(u, t)
        u_xx, u_yy = self.d(u_x, x), self.d(u_y, y)
        v_x, v_y, v_t = self.d(v, x), self.d(v, y), self.d(v, t)
        v_xx, v_yy = self.d(v_x, x), self.d(v_y, y)
        p_x, p_y = self.d(p, x), self.d(p, y)
        f = u_t + u * u_x + v * u_y + p_x - nu * (u_xx + u_yy)
        g = v_t + u * v_x + v * v_y + p_y - nu * (v_xx + v_yy)
        return u, v, p, f, g

    def closure(self):
        self.optimizer.zero_grad()
        u_prediction, v_prediction, p_prediction, f_prediction, g_prediction = self.function(self.x, self.y, self.t)
        u_loss = self.mse(u_prediction, self.u)
        v_loss = self.mse(v_prediction, self.v)
        f_loss = self.mse(f_prediction, self.null)
        g_loss = self.mse(g_prediction, self.null)
        self.ls = u_loss + v_loss + f_loss + g_loss
        self.ls.backward()
        self.iter += 1
        return self.ls

    def train(self, steps=2):
        self.net.train()
        for s in range(steps):
            self.optimizer.step(self.closure)
            print(f"step {s} closure calls {self.iter} loss {self.ls.item():.5f}")


def main():
    torch.manual_seed(0)
    N = 12
    X, Y, T = torch.rand(N, 1), torch.rand(N, 1), torch.rand(N, 1)
    u = torch.sin(torch.pi * X) * torch.cos(torch.pi * Y)
    v = -torch.cos(torch.pi * X) * torch.sin(torch.pi * Y)
    pinn = NavierStokes(X, Y, T, u, v)
    w0 = pinn.net[0].weight.detach().clone()
    pinn.train()
    print("weight change", (pinn.net[0].weight - w0).abs().max().item())


if __name__ == "__main__":
    main()
