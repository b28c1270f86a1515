# corpus: Wasserstein auto-encoder (MMD penalty, IMQ kernel) where the reconstruction loss and the MMD loss share one encoder forward but are backpropagated by two separate backward() calls; the second one hits the encoder graph the first one freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/schelotto/Wasserstein-AutoEncoders/issues/2
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_dim=32, z_dim=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, z_dim))

    def forward(self, x):
        return self.net(x)


class Decoder(nn.Module):
    def __init__(self, z_dim=4, out_dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 64), nn.ReLU(), nn.Linear(64, out_dim), nn.Sigmoid())

    def forward(self, z):
        return self.net(z)


def imq_kernel(a, b, z_dim, scales=(0.5, 1.0, 2.0)):
    dists = torch.cdist(a, b).pow(2)
    total = 0.0
    for s in scales:
        c = 2.0 * z_dim * s
        total = total + c / (c + dists)
    return total


def mmd_penalty(z_fake, z_prior, z_dim):
    n = z_fake.size(0)
    k_pp = imq_kernel(z_prior, z_prior, z_dim)
    k_qq = imq_kernel(z_fake, z_fake, z_dim)
    k_pq = imq_kernel(z_prior, z_fake, z_dim)
    off = 1.0 - torch.eye(n)
    return ((k_pp * off).sum() + (k_qq * off).sum()) / (n * (n - 1)) - 2.0 * k_pq.mean()


class WAETrainer:
    def __init__(self, z_dim=4, lam=10.0):
        self.encoder, self.decoder = Encoder(z_dim=z_dim), Decoder(z_dim=z_dim)
        self.enc_optim = torch.optim.Adam(self.encoder.parameters(), lr=1e-3)
        self.dec_optim = torch.optim.Adam(self.decoder.parameters(), lr=1e-3)
        self.z_dim, self.lam = z_dim, lam

    def step(self, images):
        self.enc_optim.zero_grad()
        self.dec_optim.zero_grad()
        z = self.encoder(images)
        recon = self.decoder(z)
        recon_loss = F.binary_cross_entropy(recon, images)
        recon_loss.backward()  # expect: GG102

        z_prior = torch.randn_like(z)
        mmd_loss = self.lam * mmd_penalty(z, z_prior, self.z_dim)
        mmd_loss.backward()  # also: GG102
        self.enc_optim.step()
        self.dec_optim.step()
        return {"recon": recon_loss.item(), "mmd": mmd_loss.item()}


def main():
    torch.manual_seed(0)
    trainer = WAETrainer()
    for it in range(3):
        print(it, trainer.step(torch.rand(16, 32)))


if __name__ == "__main__":
    main()
