# corpus: semi-supervised VAE (M2) whose log-density helper turns the encoder variance into a numpy array for np.log while computing the labelled ELBO
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/GuHY777/SS-VAE-pytorch/issues/1
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def log_Gaussian_pro(x, mu, var):
    """log N(x; mu, diag(var)) summed over the latent dimension."""
    log_norm = np.log(2.0 * np.pi * var.numpy())  # expect: GG110
    return torch.sum(-0.5 * (torch.from_numpy(log_norm) + (x - mu) ** 2 / var), dim=1)


def log_standard_Gaussian(x):
    return torch.sum(-0.5 * np.log(2.0 * np.pi) - x ** 2 / 2.0, dim=1)


class SSVAE(nn.Module):
    def __init__(self, x_dim=10, y_dim=3, z_dim=2, h_dim=16):
        super().__init__()
        self.y_dim = y_dim
        self.classifier = nn.Sequential(nn.Linear(x_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, y_dim))
        self.encoder = nn.Sequential(nn.Linear(x_dim + y_dim, h_dim), nn.ReLU())
        self.z_mu = nn.Linear(h_dim, z_dim)
        self.z_logvar = nn.Linear(h_dim, z_dim)
        self.decoder = nn.Sequential(nn.Linear(z_dim + y_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, x_dim))

    def encode(self, x, y):
        h = self.encoder(torch.cat([x, y], dim=1))
        return self.z_mu(h), torch.exp(self.z_logvar(h))

    def reparameterize(self, mu, var):
        return mu + torch.randn_like(mu) * torch.sqrt(var)

    def forward(self, x, y):
        z_mu, z_var = self.encode(x, y)
        z = self.reparameterize(z_mu, z_var)
        x_logits = self.decoder(torch.cat([z, y], dim=1))
        return x_logits, z, z_mu, z_var


def labelled_loss(model, x, y):
    x_logits, z, z_mu, z_var = model(x, y)
    log_p_x = -F.binary_cross_entropy_with_logits(x_logits, x, reduction="none").sum(1)
    log_p_y = torch.full_like(log_p_x, -np.log(model.y_dim))
    log_p_z = log_standard_Gaussian(z)
    log_q_z = log_Gaussian_pro(z, z_mu, z_var)  # also: GG110
    return -(log_p_x + log_p_y + log_p_z - log_q_z)


def train_step(model, optimizer, x_l, y_l, alpha=0.1):
    y_onehot = F.one_hot(y_l, model.y_dim).float()
    elbo_l = labelled_loss(model, x_l, y_onehot).mean()
    class_loss = F.cross_entropy(model.classifier(x_l), y_l)
    loss = elbo_l + alpha * class_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return {"elbo": elbo_l.item(), "cls": class_loss.item()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = SSVAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        x_l = torch.rand(8, 10).round()
        y_l = torch.randint(0, 3, (8,))
        print(step, train_step(model, optimizer, x_l, y_l))
