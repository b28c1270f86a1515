# corpus: network trained to match both a function and its input-derivative (Sobolev-style scientific regression); the derivative comes from autograd.grad without create_graph, so the derivative loss has no graph and silently contributes nothing to the weight update
# source: https://github.com/pytorch/pytorch/issues/31984
import torch
from torch import nn
from torch.autograd import grad


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(3, 30)
        self.lin2 = nn.Linear(30, 1)

    def forward(self, p):
        x = self.lin1(p)
        x = nn.ReLU()(x)
        return self.lin2(x)


def make_data(n=256):
    x = torch.randn(n, 3)
    y = (5 * torch.sin(x) + 3 * torch.cos(x)).sum(dim=-1).unsqueeze(-1)
    z = (5 * torch.cos(x) - 3 * torch.sin(x)).sum(dim=-1).unsqueeze(-1)
    return x, y, z


class DerivativeTrainer:
    def __init__(self, model, lr=3e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.MSELoss()
        self.history = {"loss_y": [], "loss_z": []}

    def input_gradient(self, output, x):
        return grad(output.sum(), x, retain_graph=True)[0]  # expect: GG202

    def step(self, x, y, z):
        self.model.train()
        x.requires_grad = True
        self.optimizer.zero_grad()
        output = self.model(x)
        grad_x = self.input_gradient(output, x)
        loss_y = self.criterion(output, y)
        loss_z = self.criterion(grad_x.sum(dim=-1).unsqueeze(-1), z)  # also: GG202
        loss = loss_y + loss_z
        loss.backward()
        self.optimizer.step()
        self.history["loss_y"].append(loss_y.item())
        self.history["loss_z"].append(loss_z.item())
        return loss.item()


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    x, y, z = make_data()
    trainer = DerivativeTrainer(Net())
    for epoch in range(50):
        trainer.step(x, y, z)
        if epoch % 10 == 0:
            print("Loss_y = {:.4f} | Loss_z = {:.4f}.".format(
                trainer.history["loss_y"][-1], trainer.history["loss_z"][-1]))


if __name__ == "__main__":
    main()
