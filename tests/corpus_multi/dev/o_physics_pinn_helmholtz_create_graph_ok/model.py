import torch.nn as nn


class HelmholtzNet(nn.Module):
    """Maps scaled (rho, T) to scaled molar Helmholtz free energy F."""

    def __init__(self, hidden=32, layers=3):
        super().__init__()
        blocks = [nn.Linear(2, hidden), nn.Tanh()]
        for _ in range(layers - 1):
            blocks += [nn.Linear(hidden, hidden), nn.Tanh()]
        blocks.append(nn.Linear(hidden, 1))
        self.net = nn.Sequential(*blocks)

    def forward(self, x):
        return self.net(x)
