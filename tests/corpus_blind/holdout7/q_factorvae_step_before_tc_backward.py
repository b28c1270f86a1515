# corpus: FactorVAE loss module (disentangling-vae style) steps the VAE optimizer inside the loss after vae_loss.backward(retain_graph=True), then backpropagates the discriminator TC loss through d_z, which was computed from the encoder/discriminator weights the step changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/YannDubs/disentangling-vae/issues/62
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, img_dim, latent_dim):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(img_dim, 32), nn.ReLU())
        self.mu = nn.Linear(32, latent_dim)
        self.logvar = nn.Linear(32, latent_dim)

    def forward(self, x):
        h = self.body(x)
        return self.mu(h), self.logvar(h)


class VAE(nn.Module):
    def __init__(self, img_dim=16, latent_dim=4):
        super().__init__()
        self.encoder = Encoder(img_dim, latent_dim)
        self.decoder = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, img_dim))

    def reparameterize(self, mean, logvar):
        std = torch.exp(0.5 * logvar)
        return mean + std * torch.randn_like(std)

    def forward(self, x):
        mean, logvar = self.encoder(x)
        z = self.reparameterize(mean, logvar)
        return self.decoder(z), (mean, logvar), z


class Discriminator(nn.Module):
    def __init__(self, latent_dim=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 2))

    def forward(self, z):
        return self.net(z)


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
        vae_loss.backward(retain_graph=True)
        optimizer.step()  # expect: GG111

        _, _, latent_sample2 = model(data2)
        z_perm = permute_dims(latent_sample2).detach()
        d_z_perm = self.discriminator(z_perm)

        ones = torch.ones(half, dtype=torch.long)
        zeros = torch.zeros_like(ones)
        d_tc_loss = 0.5 * (F.cross_entropy(d_z, zeros) + F.cross_entropy(d_z_perm, ones))

        self.optimizer_d.zero_grad()
        d_tc_loss.backward()  # also: GG111
        self.optimizer_d.step()
        return {"vae": vae_loss.item(), "d_tc": d_tc_loss.item()}


class Trainer:
    def __init__(self, args):
        self.model = VAE()
        self.discriminator = Discriminator()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.optimizer_d = torch.optim.Adam(self.discriminator.parameters(), lr=args.lr_disc)
        self.loss_f = FactorKLoss(self.discriminator, self.optimizer_d)

    def train_epoch(self, batches):
        logs = []
        for data in batches:
            logs.append(self.loss_f(data, self.model, self.optimizer))
        return logs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--lr-disc", type=float, default=5e-5)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = Trainer(args)
    batches = [torch.randn(16, 16) for _ in range(3)]
    for epoch in range(args.epochs):
        print(epoch, trainer.train_epoch(batches)[-1])


if __name__ == "__main__":
    main()
