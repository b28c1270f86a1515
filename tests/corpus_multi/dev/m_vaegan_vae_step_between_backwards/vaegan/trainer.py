import torch
import torch.nn as nn
import torch.optim as optim

from .losses import loss_function
from .models import VAE, Discriminator


class VAEGANTrainer:
    def __init__(self, nz=8, lr=1e-4):
        self.nz = nz
        self.vae = VAE(nz)
        self.D = Discriminator()
        self.criterion = nn.BCELoss()
        self.optimizerD = optim.Adam(self.D.parameters(), lr=lr)
        self.optimizerVAE = optim.Adam(self.vae.parameters(), lr=lr)

    def train_step(self, data):
        batch_size = data.shape[0]
        real_label = torch.ones(batch_size)
        fake_label = torch.zeros(batch_size)

        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        self.D.zero_grad()
        output = self.D(data)
        errD_real = self.criterion(output, real_label)
        errD_real.backward()
        z = torch.randn(batch_size, self.nz)
        fake_data = self.vae.decode(z)
        output = self.D(fake_data)
        errD_fake = self.criterion(output, fake_label)
        errD_fake.backward()
        errD = errD_real.item() + errD_fake.item()
        self.optimizerD.step()

        # (2) Update G network which is the decoder of VAE
        recon_data, mean, logstd = self.vae(data)
        self.vae.zero_grad()
        vae_loss = loss_function(recon_data, data, mean, logstd)
        vae_loss.backward(retain_graph=True)
        self.optimizerVAE.step()  # expect: GG111

        # (3) Update G network: maximize log(D(G(z)))
        self.vae.zero_grad()
        output = self.D(recon_data)  # also: GG111
        errVAE = self.criterion(output, real_label)
        errVAE.backward()  # also: GG111
        self.optimizerVAE.step()
        return {"errD": errD, "vae_loss": vae_loss.item(), "errVAE": errVAE.item()}
