# corpus: VaGAN (VAE + GMM prior + GAN) training where the generator/encoder/GMM optimizer steps after a retained g_loss backward, and the discriminator loss then backpropagates through the same D(fake) graph whose generator weights were just updated in place.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/fwt-team/VaGAN-pytorch/issues/1
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, input_dim=16, latent_dim=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(input_dim, 32), nn.ReLU())
        self.mu = nn.Linear(32, latent_dim)
        self.log_sigma2 = nn.Linear(32, latent_dim)

    def forward(self, x):
        h = self.net(x)
        mu, log_sigma2 = self.mu(h), self.log_sigma2(h)
        z = torch.randn_like(mu) * torch.exp(log_sigma2 / 2) + mu
        return z, mu, log_sigma2


class Generator(nn.Module):
    def __init__(self, latent_dim=4, output_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, output_dim), nn.Sigmoid())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, input_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(input_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)


class GMM(nn.Module):
    def __init__(self, n_cluster=3, n_features=4):
        super().__init__()
        self.pi_ = nn.Parameter(torch.full((n_cluster,), 1.0 / n_cluster))
        self.mu_c = nn.Parameter(torch.randn(n_cluster, n_features))
        self.log_sigma2_c = nn.Parameter(torch.zeros(n_cluster, n_features))

    def gaussian_pdfs_log(self, x, mus, log_sigma2s):
        return -0.5 * torch.sum(math.log(2 * math.pi) + log_sigma2s.unsqueeze(0)
                                + (x.unsqueeze(1) - mus.unsqueeze(0)).pow(2) / torch.exp(log_sigma2s.unsqueeze(0)), 2)


def gmm_Loss(z_mu, z_sigma2_log, gmm):
    pi, mu_c, log_sigma2_c = gmm.pi_, gmm.mu_c, gmm.log_sigma2_c
    z = torch.randn_like(z_mu) * torch.exp(z_sigma2_log / 2) + z_mu
    yita_c = torch.exp(torch.log(pi.abs().unsqueeze(0)) + gmm.gaussian_pdfs_log(z, mu_c, log_sigma2_c)) + 1e-10
    yita_c = yita_c / yita_c.sum(1, keepdim=True)
    loss = 0.5 * torch.mean(torch.sum(yita_c * torch.sum(
        log_sigma2_c.unsqueeze(0) + torch.exp(z_sigma2_log.unsqueeze(1) - log_sigma2_c.unsqueeze(0))
        + (z_mu.unsqueeze(1) - mu_c.unsqueeze(0)).pow(2) / torch.exp(log_sigma2_c.unsqueeze(0)), 2), 1))
    loss = loss - torch.mean(torch.sum(yita_c * torch.log(pi.abs().unsqueeze(0) / yita_c), 1)) \
        - 0.5 * torch.mean(torch.sum(1 + z_sigma2_log, 1))
    return loss


def main():
    torch.manual_seed(0)
    n_epochs, n_skip_iter, train_batch_size = 2, 2, 8
    encoder, gen, dis, gmm = Encoder(), Generator(), Discriminator(), GMM()
    xe_loss = nn.BCELoss(reduction="sum")
    gen_enc_gmm_ops = torch.optim.Adam(list(gen.parameters()) + list(encoder.parameters()) + list(gmm.parameters()),
                                       lr=1e-3, betas=(0.5, 0.99))
    dis_ops = torch.optim.Adam(dis.parameters(), lr=1e-3, betas=(0.5, 0.99))
    dataloader = [(torch.rand(train_batch_size, 16), torch.randint(0, 3, (train_batch_size,))) for _ in range(4)]

    for epoch in range(n_epochs):
        g_t_loss, d_t_loss = 0, 0
        for index, (real_images, target) in enumerate(dataloader):
            encoder.zero_grad()
            gen.zero_grad()
            gmm.zero_grad()
            dis.zero_grad()
            gen_enc_gmm_ops.zero_grad()

            z, z_mu, z_sigma2_log = encoder(real_images)
            fake_images = gen(z)
            rec_loss = xe_loss(fake_images, real_images) / train_batch_size

            D_real = dis(real_images)
            D_fake = dis(fake_images)

            if index % n_skip_iter == n_skip_iter - 1:
                # train generator, encoder and gmm
                g_loss = torch.mean(-torch.log(D_fake)) + gmm_Loss(z_mu, z_sigma2_log, gmm) + rec_loss
                g_loss.backward(retain_graph=True)
                gen_enc_gmm_ops.step()  # expect: GG111
                g_t_loss += g_loss.item()

            # train discriminator
            dis_ops.zero_grad()
            d_loss = torch.mean(-torch.log(D_real) - torch.log(1 - D_fake)) / 2
            d_loss.backward()  # also: GG111
            dis_ops.step()
            d_t_loss += d_loss.item()

        print("[VaGAN]: epoch: {}, g_loss: {}, d_loss: {}".format(epoch, g_t_loss / len(dataloader),
                                                                 d_t_loss / len(dataloader)))


if __name__ == "__main__":
    main()
