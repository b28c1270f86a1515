# corpus: network trained on a value loss plus a loss on its input-derivative, but the derivative comes from autograd.grad without create_graph, so that term never reaches the weights
# source: https://github.com/pytorch/pytorch/issues/31984
import torch
from torch import nn
from torch.autograd import grad


class net(nn.Module):
    def __init__(self):
        super(net, self).__init__()
        self.lin1 = nn.Linear(3, 30)
        self.lin2 = nn.Linear(30, 1)

    def forward(self, p):
        x = self.lin1(p)
        x = nn.Tanh()(x)
        return self.lin2(x)


def make_data(n=256):
    x = torch.randn(n, 3)
    y = (5 * torch.sin(x) + 3 * torch.cos(x)).sum(dim=-1).unsqueeze(-1)
    z = (5 * torch.cos(x) - 3 * torch.sin(x)).sum(dim=-1).unsqueeze(-1)
    return x, y, z


def train_step(model, optimizer, x, y, z):
    model.train()
    x.requires_grad = True
    optimizer.zero_grad()
    output = model(x)
    grad_x = grad(output.sum(), x, retain_graph=True)[0]  # expect: GG202
    loss_y = nn.MSELoss()(output, y)
    loss_z = nn.MSELoss()(grad_x.sum(dim=-1).unsqueeze(-1), z)  # also: GG202
    loss = loss_y + loss_z
    loss.backward()
    optimizer.step()
    return loss_y.item(), loss_z.item()


def evaluate(model, x, y, z):
    model.eval()
    x = x.clone().requires_grad_(True)
    output = model(x)
    grad_x = grad(output.sum(), x)[0]
    return nn.MSELoss()(output, y).item(), nn.MSELoss()(grad_x.sum(-1, keepdim=True), z).item()


def main():
    torch.manual_seed(0)
    x, y, z = make_data()
    x_val, y_val, z_val = make_data(64)
    model = net()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(60):
        ly, lz = train_step(model, optimizer, x, y, z)
        if epoch % 20 == 0:
            print('Loss_y = {:.4f} | Loss_z = {:.4f}.'.format(ly, lz))
    print('val (y, z):', evaluate(model, x_val, y_val, z_val))


if __name__ == "__main__":
    main()
