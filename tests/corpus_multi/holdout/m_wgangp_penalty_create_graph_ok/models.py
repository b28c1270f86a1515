import torch.nn as nn

DIM = 32
OUTPUT_DIM = 16


class Generator(nn.Module):
    def __init__(self, nz=8):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(nz, DIM), nn.ReLU(True),
            nn.Linear(DIM, DIM), nn.ReLU(True),
            nn.Linear(DIM, OUTPUT_DIM), nn.Sigmoid(),
        )

    def forward(self, noise):
        return self.main(noise)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(OUTPUT_DIM, DIM), nn.ReLU(True),
            nn.Linear(DIM, DIM), nn.ReLU(True),
            nn.Linear(DIM, 1),
        )

    def forward(self, inputs):
        return self.main(inputs).view(-1)
