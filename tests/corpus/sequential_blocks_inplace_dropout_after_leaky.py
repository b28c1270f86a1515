# corpus: a discriminator assembled from block lists with nn.Sequential(*block(...)); Dropout(inplace=True) overwrites what LeakyReLU(inplace=True) saved
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn

torch.manual_seed(0)


def block(n_in, n_out):
    return [nn.Linear(n_in, n_out), nn.LeakyReLU(0.2, inplace=True), nn.Dropout(0.3, inplace=True)]  # expect: GG107


class Critic(nn.Module):
    def __init__(self, dim=12):
        super().__init__()
        self.net = nn.Sequential(*block(dim, 32), *block(32, 16), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


critic = Critic()
opt = torch.optim.SGD(critic.parameters(), lr=0.01)
for _ in range(2):
    loss = critic(torch.randn(4, 12)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
