# corpus: a discriminator's forward loops over a ModuleList of different layers; the training step logs the generator loss tensor in a dict of lists
import torch
import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 12), nn.Linear(12, 1)])

    def forward(self, x):
        feats = []
        for depth, layer in enumerate(self.layers):
            x = layer(x)
            feats.append(x)
            if depth + 1 < len(self.layers):
                x = torch.tanh(x)
        return feats[:-1], feats[-1]


class GANTrainer:
    def __init__(self):
        self.gen = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
        self.disc = Discriminator()
        self.opt_g = torch.optim.Adam(self.gen.parameters(), lr=1e-3)
        self.log = {"loss_g": [], "loss_d": []}

    def step(self, z):
        _, score = self.disc(self.gen(z))
        loss_g = torch.mean((score - 1.0) ** 2)
        self.opt_g.zero_grad()
        loss_g.backward()
        self.opt_g.step()
        self.log["loss_g"].append(loss_g)  # expect: GG301


torch.manual_seed(0)
trainer = GANTrainer()
for _ in range(3):
    trainer.step(torch.randn(5, 3))
assert all(t.grad_fn is not None for t in trainer.log["loss_g"])
