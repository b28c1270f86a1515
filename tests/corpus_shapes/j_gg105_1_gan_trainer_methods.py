# corpus: GANTrainer.train_step generates fake once and hands it to d_step (no detach) and then g_step, whose backward re-enters G's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG105.md (shape: 1)
import torch
import torch.nn as nn


class GANTrainer:
    def __init__(self, generator, discriminator, opt_g, opt_d, z_dim=4):
        self.G = generator
        self.D = discriminator
        self.opt_g = opt_g
        self.opt_d = opt_d
        self.z_dim = z_dim
        self.bce = nn.BCEWithLogitsLoss()

    def d_step(self, real, fake):
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(fake.size(0), 1)
        d_loss = self.bce(self.D(real), ones) + self.bce(self.D(fake), zeros)  # expect: GG105
        self.opt_d.zero_grad()
        d_loss.backward()
        self.opt_d.step()
        return d_loss.item()

    def g_step(self, fake):
        g_loss = self.bce(self.D(fake), torch.ones(fake.size(0), 1))
        self.opt_g.zero_grad()
        g_loss.backward()  # also: GG105
        self.opt_g.step()
        return g_loss.item()

    def train_step(self, real):
        fake = self.G(torch.randn(real.size(0), self.z_dim))
        return self.d_step(real, fake), self.g_step(fake)

    def fit(self, batches):
        return [self.train_step(real) for real in batches]


torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
trainer = GANTrainer(G, D, torch.optim.Adam(G.parameters(), lr=2e-4), torch.optim.Adam(D.parameters(), lr=2e-4))
print(trainer.fit([torch.randn(16, 2) for _ in range(2)]))
