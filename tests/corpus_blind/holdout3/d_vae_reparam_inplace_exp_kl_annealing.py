# corpus: pytorch/examples-style VAE whose reparameterize uses logvar.mul(0.5).exp_() and eps.mul(std).add_(mu), trained with a linear KL-annealing schedule and a dict of losses logged as floats
# source: https://github.com/pytorch/examples/issues/592
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, x_dim=20, h_dim=16, z_dim=3):
        super().__init__()
        self.fc1 = nn.Linear(x_dim, h_dim)
        self.fc21 = nn.Linear(h_dim, z_dim)
        self.fc22 = nn.Linear(h_dim, z_dim)
        self.fc3 = nn.Linear(z_dim, h_dim)
        self.fc4 = nn.Linear(h_dim, x_dim)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        if self.training:
            std = logvar.mul(0.5).exp_()
            eps = torch.randn_like(std)
            return eps.mul(std).add_(mu)
        return mu

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


class KLAnnealer:
    def __init__(self, warmup_steps):
        self.warmup_steps = warmup_steps
        self.step_count = 0

    def step(self):
        self.step_count += 1
        return min(1.0, self.step_count / self.warmup_steps)


def loss_function(recon_x, x, mu, logvar, beta):
    bce = F.binary_cross_entropy(recon_x, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return {"loss": bce + beta * kld, "bce": bce, "kld": kld}


def train(model, optimizer, annealer, loader, epoch):
    model.train()
    running = {"loss": 0.0, "bce": 0.0, "kld": 0.0}
    for batch_idx, data in enumerate(loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        losses = loss_function(recon_batch, data, mu, logvar, beta=annealer.step())
        losses["loss"].backward()
        optimizer.step()
        for k, v in losses.items():
            running[k] += v.item()
    n = sum(len(d) for d in loader)
    print(f"====> Epoch {epoch} " + " ".join(f"{k}: {v / n:.4f}" for k, v in running.items()))
    return running


def test(model, loader):
    model.eval()
    test_loss = 0.0
    with torch.no_grad():
        for data in loader:
            recon, mu, logvar = model(data)
            test_loss += loss_function(recon, data, mu, logvar, beta=1.0)["loss"].item()
        sample = model.decode(torch.randn(4, 3)).numpy()
    return test_loss / sum(len(d) for d in loader), sample


if __name__ == "__main__":
    torch.manual_seed(0)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    annealer = KLAnnealer(warmup_steps=6)
    train_loader = [torch.rand(8, 20).round() for _ in range(3)]
    test_loader = [torch.rand(8, 20).round() for _ in range(2)]
    for epoch in range(1, 4):
        train(model, optimizer, annealer, train_loader, epoch)
        loss, sample = test(model, test_loader)
        print(f"====> Test loss: {loss:.4f} sample shape {sample.shape}")
