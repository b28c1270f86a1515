# corpus: module-level generator_step runs first (retain_graph=True, opt_g.step()), then discriminator_step feeds the same undetached fake to D and its backward hits G's updated weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG105.md (shape: 2)
import torch
import torch.nn as nn

bce = nn.BCEWithLogitsLoss()


def generator_step(D, opt_g, fake):
    g_loss = bce(D(fake), torch.ones(fake.size(0), 1))
    opt_g.zero_grad()
    g_loss.backward(retain_graph=True)
    opt_g.step()
    return g_loss.item()


def discriminator_step(D, opt_d, real, fake):
    real_loss = bce(D(real), torch.ones(real.size(0), 1))
    fake_loss = bce(D(fake), torch.zeros(fake.size(0), 1))  # expect: GG105
    d_loss = real_loss + fake_loss
    opt_d.zero_grad()
    d_loss.backward()  # also: GG105
    opt_d.step()
    return d_loss.item()


def train_one_epoch(G, D, opt_g, opt_d, data, z_dim=4):
    log = []
    for real in data:
        fake = G(torch.randn(real.size(0), z_dim))
        g = generator_step(D, opt_g, fake)
        d = discriminator_step(D, opt_d, real, fake)
        log.append((g, d))
    return log


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
    print(train_one_epoch(G, D, opt_g, opt_d, [torch.randn(16, 2) for _ in range(2)]))


if __name__ == "__main__":
    main()
