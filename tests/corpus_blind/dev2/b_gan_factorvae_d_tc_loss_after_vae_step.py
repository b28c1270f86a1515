# corpus: FactorVAE solver backpropagates vae_loss with retain_graph=True and steps optim_VAE, then builds D_tc_loss from D_z (computed on the VAE's z before the step) and backpropagates it through the updated encoder
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/1Konny/FactorVAE/issues/15
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


def original_vae_loss(x, x_recon, mu, logvar):
    batch_size = x.size(0)
    recon_loss = F.binary_cross_entropy_with_logits(x_recon, x, reduction='sum').div(batch_size)
    kl_divergence = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1).mean()
    return recon_loss, kl_divergence


def permute_dims(z):
    B, d = z.size()
    perm_z = []
    for z_j in z.split(1, 1):
        perm = torch.randperm(B)
        perm_z.append(z_j[perm])
    return torch.cat(perm_z, 1)


class FactorVAE(nn.Module):
    def __init__(self, z_dim=4, x_dim=20):
        super().__init__()
        self.z_dim = z_dim
        self.encode = nn.Sequential(nn.Linear(x_dim, 32), nn.ReLU(True), nn.Linear(32, 2 * z_dim))
        self.decode = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(True), nn.Linear(32, x_dim))

    def reparametrize(self, mu, logvar):
        return mu + (0.5 * logvar).exp() * torch.randn_like(mu)

    def forward(self, x, no_dec=False):
        stats = self.encode(x)
        mu, logvar = stats[:, :self.z_dim], stats[:, self.z_dim:]
        z = self.reparametrize(mu, logvar)
        if no_dec:
            return z
        return self.decode(z), mu, logvar, z


class Discriminator(nn.Module):
    def __init__(self, z_dim=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.LeakyReLU(0.2, True), nn.Linear(32, 2))

    def forward(self, z):
        return self.net(z)


class Solver(object):
    def __init__(self, args):
        self.max_iter, self.global_iter, self.gamma = args.max_iter, 0, args.gamma
        self.batch_size = args.batch_size
        self.VAE = FactorVAE(args.z_dim)
        self.optim_VAE = optim.Adam(self.VAE.parameters(), lr=args.lr_VAE, betas=(0.9, 0.999))
        self.D = Discriminator(args.z_dim)
        self.optim_D = optim.Adam(self.D.parameters(), lr=args.lr_D, betas=(0.5, 0.9))
        self.data_loader = [(torch.rand(self.batch_size, 20).round(), torch.rand(self.batch_size, 20).round())
                            for _ in range(args.max_iter)]

    def train(self):
        ones = torch.ones(self.batch_size, dtype=torch.long)
        zeros = torch.zeros(self.batch_size, dtype=torch.long)
        for x_true1, x_true2 in self.data_loader:
            self.global_iter += 1
            x_recon, mu, logvar, z = self.VAE(x_true1)
            vae_recon_loss, vae_kld = original_vae_loss(x_true1, x_recon, mu, logvar)
            D_z = self.D(z)  # also: GG111
            vae_tc_loss = (D_z[:, :1] - D_z[:, 1:]).mean()
            vae_loss = vae_recon_loss + vae_kld + self.gamma * vae_tc_loss

            self.optim_VAE.zero_grad()
            vae_loss.backward(retain_graph=True)
            self.optim_VAE.step()  # expect: GG111

            z_prime = self.VAE(x_true2, no_dec=True)
            z_pperm = permute_dims(z_prime).detach()
            D_z_pperm = self.D(z_pperm)
            D_tc_loss = 0.5 * (F.cross_entropy(D_z, zeros) + F.cross_entropy(D_z_pperm, ones))

            self.optim_D.zero_grad()
            D_tc_loss.backward()  # also: GG111
            self.optim_D.step()

            if self.global_iter >= self.max_iter:
                break
        print('[{}] vae_recon_loss:{:.3f} D_tc_loss:{:.3f}'.format(
            self.global_iter, vae_recon_loss.item(), D_tc_loss.item()))


if __name__ == '__main__':
    torch.manual_seed(0)
    args = SimpleNamespace(max_iter=3, gamma=6.4, batch_size=8, z_dim=4, lr_VAE=1e-4, lr_D=1e-4)
    Solver(args).train()
