# corpus: small VAE where reconstruction and KL terms are backpropagated one after the other
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, d: int = 20, z: int = 4) -> None:
        super().__init__()
        self.enc = nn.Linear(d, 16)
        self.mu = nn.Linear(16, z)
        self.logvar = nn.Linear(16, z)
        self.dec1 = nn.Linear(z, 16)
        self.dec2 = nn.Linear(16, d)

    def encode(self, x):
        h = F.relu(self.enc(x))
        return self.mu(h), self.logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.dec2(F.relu(self.dec1(z))))

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


vae = VAE()
optimizer = torch.optim.Adam(vae.parameters(), lr=1e-3)
data = torch.rand(32, 20)

for epoch in range(2):
    optimizer.zero_grad()
    recon, mu, logvar = vae(data)
    recon_loss = F.binary_cross_entropy(recon, data, reduction="sum")
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    recon_loss.backward()
    kl.backward()  # expect: GG102
    optimizer.step()
    print(f"epoch {epoch}: recon {recon_loss.item():.2f} kl {kl.item():.2f}")
