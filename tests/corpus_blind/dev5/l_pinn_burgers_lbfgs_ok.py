# corpus: PINN for the Burgers equation (PhysicsInformedNN class with net_u/net_f, derivatives from autograd.grad with create_graph=True, data + mean-squared residual loss, LBFGS closure that zeroes grads itself) (correct)
# source: https://github.com/xianggebenben/dlADMM/issues/1
import argparse
from collections import OrderedDict

import numpy as np
import torch


class DNN(torch.nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.depth = len(layers) - 1
        self.activation = torch.nn.Tanh
        layer_list = []
        for i in range(self.depth - 1):
            layer_list.append(("layer_%d" % i, torch.nn.Linear(layers[i], layers[i + 1])))
            layer_list.append(("activation_%d" % i, self.activation()))
        layer_list.append(("layer_%d" % (self.depth - 1), torch.nn.Linear(layers[-2], layers[-1])))
        self.layers = torch.nn.Sequential(OrderedDict(layer_list))

    def forward(self, x):
        return self.layers(x)


class PhysicsInformedNN:
    def __init__(self, X_u, u, X_f, layers, lb, ub, nu, max_iter):
        self.lb = torch.tensor(lb).float()
        self.ub = torch.tensor(ub).float()
        self.x_u = torch.tensor(X_u[:, 0:1], requires_grad=True).float()
        self.t_u = torch.tensor(X_u[:, 1:2], requires_grad=True).float()
        self.x_f = torch.tensor(X_f[:, 0:1], requires_grad=True).float()
        self.t_f = torch.tensor(X_f[:, 1:2], requires_grad=True).float()
        self.u = torch.tensor(u).float()
        self.layers = layers
        self.nu = nu
        self.dnn = DNN(layers)
        self.optimizer = torch.optim.LBFGS(
            self.dnn.parameters(), lr=1.0, max_iter=max_iter, max_eval=max_iter, history_size=50,
            tolerance_grad=1e-5, tolerance_change=1.0 * np.finfo(float).eps, line_search_fn="strong_wolfe")
        self.iter = 0

    def net_u(self, x, t):
        X = torch.cat([x, t], dim=1)
        H = 2.0 * (X - self.lb) / (self.ub - self.lb) - 1.0
        return self.dnn(H)

    def net_f(self, x, t):
        """The pytorch autograd version of calculating residual"""
        u = self.net_u(x, t)
        u_t = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
        u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
        u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), retain_graph=True, create_graph=True)[0]
        f = u_t + u * u_x - self.nu * u_xx
        return f

    def loss_func(self):
        self.optimizer.zero_grad()
        u_pred = self.net_u(self.x_u, self.t_u)
        f_pred = self.net_f(self.x_f, self.t_f)
        loss_u = torch.mean((self.u - u_pred) ** 2)
        loss_f = torch.mean(f_pred ** 2)
        loss = loss_u + loss_f
        loss.backward()
        self.iter += 1
        if self.iter % 10 == 0:
            print("Iter %d, Loss: %.5e, Loss_u: %.5e, Loss_f: %.5e" % (self.iter, loss.item(), loss_u.item(), loss_f.item()))
        return loss

    def train(self):
        self.dnn.train()
        self.optimizer.step(self.loss_func)

    def predict(self, X):
        x = torch.tensor(X[:, 0:1], requires_grad=True).float()
        t = torch.tensor(X[:, 1:2], requires_grad=True).float()
        self.dnn.eval()
        u = self.net_u(x, t)
        f = self.net_f(x, t)
        return u.detach().cpu().numpy(), f.detach().cpu().numpy()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--N_u", type=int, default=40)
    parser.add_argument("--N_f", type=int, default=200)
    parser.add_argument("--max_iter", type=int, default=30)
    args = parser.parse_args([])
    np.random.seed(1234)
    torch.manual_seed(1234)
    nu = 0.01 / np.pi
    layers = [2, 16, 16, 1]
    lb, ub = np.array([-1.0, 0.0]), np.array([1.0, 0.99])
    x0 = np.random.uniform(-1, 1, (args.N_u // 2, 1))
    X_u_ic = np.hstack([x0, np.zeros_like(x0)])
    u_ic = -np.sin(np.pi * x0)
    tb = np.random.uniform(0, 0.99, (args.N_u // 2, 1))
    X_u_bc = np.hstack([np.where(np.random.rand(*tb.shape) < 0.5, -1.0, 1.0), tb])
    u_bc = np.zeros_like(tb)
    X_u_train = np.vstack([X_u_ic, X_u_bc])
    u_train = np.vstack([u_ic, u_bc])
    X_f_train = lb + (ub - lb) * np.random.rand(args.N_f, 2)
    X_f_train = np.vstack((X_f_train, X_u_train))
    model = PhysicsInformedNN(X_u_train, u_train, X_f_train, layers, lb, ub, nu, args.max_iter)
    model.train()
    u_pred, f_pred = model.predict(X_u_train)
    print("Error u: %e" % (np.linalg.norm(u_train - u_pred, 2) / np.linalg.norm(u_train, 2)))


if __name__ == "__main__":
    main()
