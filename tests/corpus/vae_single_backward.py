# corpus: VAE trained with recon + beta * KL summed into one loss and a single backward
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 12)
        self.fc_mu = nn.Linear(12, 2)
        self.fc_logvar = nn.Linear(12, 2)
        self.fc3 = nn.Linear(2, 12)
        self.fc4 = nn.Linear(12, 16)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        mu, logvar = self.fc_mu(h), self.fc_logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z)))), mu, logvar


model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.rand(24, 16)
beta = 0.5

for epoch in range(3):
    train_loss = 0.0
    for i in range(0, 24, 8):
        batch = data[i:i + 8]
        optimizer.zero_grad()
        recon, mu, logvar = model(batch)
        bce = F.binary_cross_entropy(recon, batch, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = bce + beta * kld
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print(f"epoch {epoch}: {train_loss / 24:.4f}")
