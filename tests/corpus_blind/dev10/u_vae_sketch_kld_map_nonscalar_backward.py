# corpus: convolutional VAE on sketch patches whose KL term is kept as a per-location map [1, H, W] (no reduction) and added to the scalar reconstruction loss, so loss.backward() is called on a non-scalar tensor
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/puckikk1202/difffacesketch2023/issues/8
import torch
import torch.nn as nn
import torch.nn.functional as F


class SketchVAE(nn.Module):
    def __init__(self, latent_ch=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(),
                                 nn.Conv2d(16, 2 * latent_ch, 3, padding=1))
        self.dec = nn.Sequential(nn.ConvTranspose2d(latent_ch, 16, 4, stride=2, padding=1), nn.ReLU(),
                                 nn.Conv2d(16, 1, 3, padding=1))

    def encode(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=1)
        return mu, logvar

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.dec(z), mu, logvar


def vae_losses(recon, x, mu, logvar):
    rec = F.mse_loss(recon, x)
    kld = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)  # expect: GG109
    return {"rec": rec, "kld": kld}


class Trainer:
    def __init__(self, model, beta=0.01):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.beta = beta

    def train_step(self, batch):
        self.optimizer.zero_grad()
        recon, mu, logvar = self.model(batch)
        losses = vae_losses(recon, batch, mu, logvar)
        loss = losses["rec"] + self.beta * losses["kld"]
        loss.backward()  # also: GG109
        self.optimizer.step()
        return {k: v.mean().item() for k, v in losses.items()}


def main():
    torch.manual_seed(0)
    trainer = Trainer(SketchVAE())
    for it in range(3):
        batch = torch.rand(1, 1, 16, 16)
        print(it, trainer.train_step(batch))


if __name__ == "__main__":
    main()
