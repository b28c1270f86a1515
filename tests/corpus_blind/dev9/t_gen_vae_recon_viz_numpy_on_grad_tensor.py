# corpus: VAE training loop hands its reconstructions, still attached to the graph, to a visualisation helper that calls .cpu().numpy() on them
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/pyro-ppl/pyro/pull/824
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, x_dim=36, z_dim=4, h_dim=32):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, h_dim), nn.ReLU())
        self.mu = nn.Linear(h_dim, z_dim)
        self.logvar = nn.Linear(h_dim, z_dim)
        self.dec = nn.Sequential(nn.Linear(z_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, x_dim), nn.Sigmoid())

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def elbo_loss(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (bce + kld) / x.size(0)


def draw_many(imgarrs, side=6):
    # Note that this clipping makes the visualisation somewhat misleading.
    clipped = np.clip(imgarrs.cpu().numpy(), 0, 1)  # expect: GG110
    tiles = clipped.reshape(-1, side, side)
    return np.concatenate(list(tiles), axis=1)


class VizTrainer:
    def __init__(self, model, lr=1e-3, viz_every=2):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.viz_every = viz_every
        self.panels = []

    def step(self, x, it):
        self.optimizer.zero_grad()
        recon, mu, logvar = self.model(x)
        loss = elbo_loss(recon, x, mu, logvar)
        loss.backward()
        self.optimizer.step()
        if it % self.viz_every == 0:
            self.panels.append(draw_many(recon[:4]))
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = VizTrainer(VAE())
    for it in range(4):
        x = (torch.rand(16, 36) > 0.5).float()
        print(it, trainer.step(x, it))


if __name__ == "__main__":
    main()
