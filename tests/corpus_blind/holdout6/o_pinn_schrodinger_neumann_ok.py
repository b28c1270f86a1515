# corpus: physics-informed network for the nonlinear Schrodinger equation with periodic Dirichlet/Neumann boundary terms; all input derivatives use autograd.grad(..., create_graph=True) so the PDE and boundary-derivative losses train the network, optimised with an L-BFGS closure (correct)
# source: https://github.com/erfanhamdi/pinn-torch/issues/1
from functools import partial

import numpy as np
import torch
import torch.nn as nn

iter = 0


def set_seed(seed: int = 42):
    torch.manual_seed(seed)
    np.random.seed(seed)


class SchrodingerNN(nn.Module):
    def __init__(self, width=20, depth=2):
        super(SchrodingerNN, self).__init__()
        self.linear_in = nn.Linear(2, width)
        self.linear_out = nn.Linear(width, 2)
        self.layers = nn.ModuleList([nn.Linear(width, width) for i in range(depth)])
        self.act = nn.Tanh()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.linear_in(x)
        for layer in self.layers:
            x = self.act(layer(x))
        x = self.linear_out(x)
        return x


def derivative(dy: torch.Tensor, x: torch.Tensor, order: int = 1) -> torch.Tensor:
    """
    This function calculates the derivative of the model at x_f
    """
    for i in range(order):
        dy = torch.autograd.grad(
            dy, x, grad_outputs=torch.ones_like(dy), create_graph=True, retain_graph=True
        )[0]
    return dy


def f(model, x_f, t_f):
    """
    This function evaluates the PDE at collocation points.
    """
    h = model(torch.stack((x_f, t_f), axis=1))
    u = h[:, 0]
    v = h[:, 1]
    u_t = derivative(u, t_f, order=1)
    v_t = derivative(v, t_f, order=1)
    u_xx = derivative(u, x_f, order=2)
    v_xx = derivative(v, x_f, order=2)
    f_u = u_t + 0.5 * v_xx + (u ** 2 + v ** 2) * v
    f_v = v_t - 0.5 * u_xx - (u ** 2 + v ** 2) * u
    return f_u, f_v


def mse_f(model, x_f, t_f):
    f_u, f_v = f(model, x_f, t_f)
    return (f_u ** 2 + f_v ** 2).mean()


def mse_0(model, x_0, u_0, v_0):
    t_0 = torch.zeros_like(x_0)
    h = model(torch.stack((x_0, t_0), axis=1))
    h_u = h[:, 0]
    h_v = h[:, 1]
    return ((h_u - u_0) ** 2 + (h_v - v_0) ** 2).mean()


def mse_b(model, t_b):
    # x_b is the boundary points which have to be between -5 and 5
    x_b_left = torch.zeros_like(t_b) - 5
    x_b_left.requires_grad = True
    h_b_left = model(torch.stack((x_b_left, t_b), axis=1))
    h_u_b_left = h_b_left[:, 0]
    h_v_b_left = h_b_left[:, 1]
    h_u_b_left_x = derivative(h_u_b_left, x_b_left, 1)
    h_v_b_left_x = derivative(h_v_b_left, x_b_left, 1)

    x_b_right = torch.zeros_like(t_b) + 5
    x_b_right.requires_grad = True
    h_b_right = model(torch.stack((x_b_right, t_b), axis=1))
    h_u_b_right = h_b_right[:, 0]
    h_v_b_right = h_b_right[:, 1]
    h_u_b_right_x = derivative(h_u_b_right, x_b_right, 1)
    h_v_b_right_x = derivative(h_v_b_right, x_b_right, 1)

    mse_drichlet = (h_u_b_left - h_u_b_right) ** 2 + (h_v_b_left - h_v_b_right) ** 2
    mse_newman = (h_u_b_left_x - h_u_b_right_x) ** 2 + (h_v_b_left_x - h_v_b_right_x) ** 2
    return (mse_drichlet + mse_newman).mean()


def init_weights(m):
    if type(m) == nn.Linear:
        torch.nn.init.xavier_normal_(m.weight)
        m.bias.data.fill_(0.01)


def closure(model, optimizer, x_f, t_f, x_0, u_0, v_0, h_0, t):
    optimizer.zero_grad()
    loss = mse_f(model, x_f, t_f) + mse_0(model, x_0, u_0, v_0) + mse_b(model, t)
    loss.backward(retain_graph=True)
    global iter
    iter += 1
    if iter % 3 == 0:
        print(f" iteration: {iter}  loss: {loss.item()}")
    return loss


def train(model, x_f, t_f, x_0, u_0, v_0, h_0, t):
    optimizer = torch.optim.LBFGS(model.parameters(),
                                  lr=1,
                                  max_iter=6,
                                  max_eval=8,
                                  history_size=50,
                                  tolerance_grad=1e-05,
                                  tolerance_change=0.5 * np.finfo(float).eps,
                                  line_search_fn="strong_wolfe")
    # the optimizer.step requires the closure function to be a callable function without inputs
    closure_fn = partial(closure, model, optimizer, x_f, t_f, x_0, u_0, v_0, h_0, t)
    optimizer.step(closure_fn)


if __name__ == "__main__":
    set_seed(42)
    lb = np.array([-5.0, 0.0])
    ub = np.array([5.0, np.pi / 2])
    N0, N_b, N_f = 32, 32, 128

    # initial condition h(0, x) = 2 sech(x)
    x_0 = torch.linspace(-5, 5, 256)
    u_0 = 2.0 / torch.cosh(x_0)
    v_0 = torch.zeros_like(x_0)
    h_0 = torch.stack((u_0, v_0), axis=1)
    t = torch.linspace(0, np.pi / 2, 201)

    c_f = lb + (ub - lb) * np.random.rand(N_f, 2)
    x_f = torch.from_numpy(c_f[:, 0].astype(np.float32))
    x_f.requires_grad = True
    t_f = torch.from_numpy(c_f[:, 1].astype(np.float32))
    t_f.requires_grad = True

    idx_0 = np.random.choice(x_0.shape[0], N0, replace=False)
    x_0, u_0, v_0, h_0 = x_0[idx_0], u_0[idx_0], v_0[idx_0], h_0[idx_0]
    idx_b = np.random.choice(t.shape[0], N_b, replace=False)
    t_b = t[idx_b]

    model = SchrodingerNN()
    model.apply(init_weights)
    model.train()
    before = mse_f(model, x_f, t_f).item() + mse_0(model, x_0, u_0, v_0).item() + mse_b(model, t_b).item()
    train(model, x_f, t_f, x_0, u_0, v_0, h_0, t_b)
    after = mse_f(model, x_f, t_f).item() + mse_0(model, x_0, u_0, v_0).item() + mse_b(model, t_b).item()
    print("loss before %.4f after %.4f" % (before, after))
