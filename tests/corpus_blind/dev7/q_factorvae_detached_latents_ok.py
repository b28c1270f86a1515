# corpus: FactorVAE loss module with the fix discussed upstream: the VAE and discriminator losses are both backpropagated before any optimizer step, and the discriminator's TC loss only sees detached latents, so it neither trips the version check nor leaks into the encoder (correct)
# source: https://github.com/YannDubs/disentangling-vae/issues/77
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, img_dim=16, latent_dim=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(img_dim, 32), nn.ReLU())
        self.mu = nn.Linear(32, latent_dim)
        self.logvar = nn.Linear(32, latent_dim)
        self.decoder = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, img_dim))

    def forward(self, x):
        h = self.body(x)
        mean, logvar = self.mu(h), self.logvar(h)
        z = mean + torch.exp(0.5 * logvar) * torch.randn_like(mean)
        return self.decoder(z), (mean, logvar), z


def permute_dims(z):
    perm = torch.zeros_like(z)
    for j in range(z.size(1)):
        perm[:, j] = z[torch.randperm(z.size(0)), j]
    return perm


class FactorKLoss:
    def __init__(self, discriminator, optimizer_d, gamma=6.0):
        self.discriminator = discriminator
        self.optimizer_d = optimizer_d
        self.gamma = gamma

    def __call__(self, data, model, optimizer):
        half = data.size(0) // 2
        data1, data2 = data[:half], data[half:]
        recon, (mean, logvar), latent_sample1 = model(data1)
        rec_loss = F.mse_loss(recon, data1, reduction="sum") / half
        kl = -0.5 * torch.sum(1 + logvar - mean.pow(2) - logvar.exp()) / half
        d_z = self.discriminator(latent_sample1)
        tc_loss = (d_z[:, 0] - d_z[:, 1]).mean()
        vae_loss = rec_loss + kl + self.gamma * tc_loss

        optimizer.zero_grad()
        self.optimizer_d.zero_grad()
        vae_loss.backward()
        self.optimizer_d.zero_grad()

        _, _, latent_sample2 = model(data2)
        z_perm = permute_dims(latent_sample2).detach()
        d_z_det = self.discriminator(latent_sample1.detach())
        d_z_perm = self.discriminator(z_perm)
        ones = torch.ones(half, dtype=torch.long)
        zeros = torch.zeros_like(ones)
        d_tc_loss = 0.5 * (F.cross_entropy(d_z_det, zeros) + F.cross_entropy(d_z_perm, ones))
        d_tc_loss.backward()

        optimizer.step()
        self.optimizer_d.step()
        return vae_loss.item(), d_tc_loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--lr-disc", type=float, default=5e-5)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = VAE()
    discriminator = nn.Sequential(nn.Linear(4, 32), nn.LeakyReLU(0.2), nn.Linear(32, 2))
    vae_params = list(model.parameters())
    optimizer = torch.optim.Adam(vae_params, lr=args.lr)
    optimizer_d = torch.optim.Adam(discriminator.parameters(), lr=args.lr_disc)
    loss_f = FactorKLoss(discriminator, optimizer_d)
    before = model.mu.weight.detach().clone()
    for epoch in range(2):
        for data in [torch.randn(16, 16) for _ in range(3)]:
            logs = loss_f(data, model, optimizer)
        print(epoch, logs)
    assert not torch.equal(before, model.mu.weight)


if __name__ == "__main__":
    main()
