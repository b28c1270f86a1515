# corpus: physics-encoded recurrent CNN for a reaction-diffusion PDE trained over consecutive time batches: the last state is carried into the next batch without detach and retain_graph=True hides it until the optimizer step breaks the kept graph
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/isds-neu/PeRCNN/issues/3
import torch
import torch.nn as nn
import torch.nn.functional as F

LAPLACE = torch.tensor([[[[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]]]])


class RCNNCell(nn.Module):
    """Pi-block: product of parallel conv branches plus a frozen Laplacian for diffusion."""

    def __init__(self, channels=2, hidden=8, dt=0.5, dx=1.0):
        super().__init__()
        self.dt, self.dx = dt, dx
        self.branches = nn.ModuleList([nn.Conv2d(channels, hidden, 1) for _ in range(3)])
        self.out = nn.Conv2d(hidden, channels, 1)
        self.diff_coef = nn.Parameter(torch.tensor([0.1, 0.05]))
        self.register_buffer("laplace", LAPLACE.repeat(channels, 1, 1, 1))

    def forward(self, h):
        padded = F.pad(h, (1, 1, 1, 1), mode="circular")
        lap = F.conv2d(padded, self.laplace, groups=h.shape[1]) / self.dx ** 2
        prod = self.branches[0](h) * self.branches[1](h) * self.branches[2](h)
        rhs = self.diff_coef.view(1, -1, 1, 1) * lap + self.out(prod)
        return h + self.dt * rhs


class RCNN(nn.Module):
    def __init__(self, step=4):
        super().__init__()
        self.cell = RCNNCell()
        self.step = step

    def forward(self, init_state):
        outputs = []
        h = init_state
        for _ in range(self.step):
            h = self.cell(h)
            outputs.append(h)
        return torch.stack(outputs, 1), h


def train(model, truth, n_iters=2, num_time_batch=3, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    step = model.step
    for epoch in range(n_iters):
        state = truth[:, 0]
        batch_loss = 0.0
        for time_batch_id in range(num_time_batch):
            optimizer.zero_grad()
            output, state = model(state)  # expect: GG104
            target = truth[:, time_batch_id * step + 1:(time_batch_id + 1) * step + 1]
            loss = F.mse_loss(output, target)
            loss.backward(retain_graph=True)  # expect: GG302
            optimizer.step()
            batch_loss += loss.item()
        print(f"epoch {epoch} loss {batch_loss:.5f}")


def main():
    torch.manual_seed(0)
    model = RCNN(step=4)
    truth = torch.rand(1, 13, 2, 8, 8)
    train(model, truth)


if __name__ == "__main__":
    main()
