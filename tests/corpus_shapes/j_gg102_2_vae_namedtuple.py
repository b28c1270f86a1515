# corpus: VAE losses returned as a namedtuple from one encoder pass; backward_recon and backward_kl helpers each backpropagate their own term
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG102.md (shape: 2, 4)
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

VAELosses = namedtuple("VAELosses", ["recon", "kl"])


def vae_losses(encoder, decoder, x):
    h = encoder(x)
    mu, logvar = h[:, :2], h[:, 2:]
    z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
    recon = F.mse_loss(decoder(z), x)
    kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
    return VAELosses(recon=recon, kl=kl)


def backward_recon(losses):
    losses.recon.backward()


def backward_kl(losses, beta):
    (beta * losses.kl).backward()  # expect: GG102


def train_one_epoch(encoder, decoder, opt, data, beta=0.5):
    for x in data:
        losses = vae_losses(encoder, decoder, x)
        opt.zero_grad()
        backward_recon(losses)
        backward_kl(losses, beta)
        opt.step()


def main():
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
    decoder = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 6))
    opt = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-3)
    data = [torch.randn(5, 6) for _ in range(2)]
    train_one_epoch(encoder, decoder, opt, data)


if __name__ == "__main__":
    main()
