# corpus: PINN for u_x = 2 u_t + u with boundary data; the PDE residual takes u_x and u_t with autograd.grad(grad_outputs=ones, create_graph=True) so the residual loss trains the weights, and the surface is plotted from .data
# source: https://github.com/nanditadoloi/PINN/issues/3
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden_layer1 = nn.Linear(2, 5)
        self.hidden_layer2 = nn.Linear(5, 5)
        self.hidden_layer3 = nn.Linear(5, 5)
        self.output_layer = nn.Linear(5, 1)

    def forward(self, x, t):
        inputs = torch.cat([x, t], axis=1)
        layer1_out = torch.sigmoid(self.hidden_layer1(inputs))
        layer2_out = torch.sigmoid(self.hidden_layer2(layer1_out))
        layer3_out = torch.sigmoid(self.hidden_layer3(layer2_out))
        return self.output_layer(layer3_out)


def f(x, t, net):
    u = net(x, t)
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
    u_t = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
    pde = u_x - 2 * u_t - u
    return pde


def train(net, iterations=30, n=64):
    mse_cost_function = torch.nn.MSELoss()
    optimizer = torch.optim.Adam(net.parameters())
    x_bc = np.random.uniform(low=0.0, high=2.0, size=(n, 1))
    t_bc = np.zeros((n, 1))
    u_bc = 6 * np.exp(-3 * x_bc)
    for epoch in range(iterations):
        optimizer.zero_grad()
        pt_x_bc = Variable(torch.from_numpy(x_bc).float(), requires_grad=False)
        pt_t_bc = Variable(torch.from_numpy(t_bc).float(), requires_grad=False)
        pt_u_bc = Variable(torch.from_numpy(u_bc).float(), requires_grad=False)
        net_bc_out = net(pt_x_bc, pt_t_bc)
        mse_u = mse_cost_function(net_bc_out, pt_u_bc)

        x_collocation = np.random.uniform(low=0.0, high=2.0, size=(n, 1))
        t_collocation = np.random.uniform(low=0.0, high=1.0, size=(n, 1))
        all_zeros = np.zeros((n, 1))
        pt_x_collocation = Variable(torch.from_numpy(x_collocation).float(), requires_grad=True)
        pt_t_collocation = Variable(torch.from_numpy(t_collocation).float(), requires_grad=True)
        pt_all_zeros = Variable(torch.from_numpy(all_zeros).float(), requires_grad=False)
        f_out = f(pt_x_collocation, pt_t_collocation, net)
        mse_f = mse_cost_function(f_out, pt_all_zeros)

        loss = mse_u + mse_f
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            with torch.autograd.no_grad():
                print(epoch, "Traning Loss:", loss.data)


def evaluate(net):
    x = np.arange(0, 2, 0.1)
    t = np.arange(0, 1, 0.1)
    ms_x, ms_t = np.meshgrid(x, t)
    x = np.ravel(ms_x).reshape(-1, 1)
    t = np.ravel(ms_t).reshape(-1, 1)
    pt_x = Variable(torch.from_numpy(x).float(), requires_grad=True)
    pt_t = Variable(torch.from_numpy(t).float(), requires_grad=True)
    pt_u = net(pt_x, pt_t)
    u = pt_u.data.cpu().numpy()
    return u.reshape(ms_x.shape)


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    np.random.seed(0)
    net = Net()
    train(net)
    ms_u = evaluate(net)
    print("u grid", ms_u.shape, float(ms_u.mean()))
