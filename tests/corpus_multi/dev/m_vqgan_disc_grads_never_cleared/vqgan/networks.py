import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost=0.25):
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)
        self.embedding.weight.data.uniform_(-1.0 / num_embeddings, 1.0 / num_embeddings)
        self.commitment_cost = commitment_cost

    def forward(self, z_e):
        b, c, h, w = z_e.shape
        flat = z_e.permute(0, 2, 3, 1).reshape(-1, c)
        distances = torch.cdist(flat, self.embedding.weight)
        indices = distances.argmin(dim=1)
        z_q = self.embedding(indices).view(b, h, w, c).permute(0, 3, 1, 2)
        loss = F.mse_loss(z_q, z_e.detach()) + self.commitment_cost * F.mse_loss(z_e, z_q.detach())
        z_q = z_e + (z_q - z_e).detach()
        return z_q, loss


class VQVAE(nn.Module):
    def __init__(self, in_channels=1, num_channels=16, num_embeddings=32, embedding_dim=8):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_channels, num_channels, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(num_channels, embedding_dim, 3, 1, 1),
        )
        self.quantizer = VectorQuantizer(num_embeddings, embedding_dim)
        self.decoder = nn.Sequential(
            nn.Conv2d(embedding_dim, num_channels, 3, 1, 1), nn.ReLU(),
            nn.ConvTranspose2d(num_channels, in_channels, 4, 2, 1),
        )

    def forward(self, images):
        z_q, quantization_loss = self.quantizer(self.encoder(images))
        return self.decoder(z_q), quantization_loss


class PatchDiscriminator(nn.Module):
    """Returns the list of intermediate features; the last entry is the patch logits (MONAI style)."""

    def __init__(self, in_channels=1, num_channels=8, num_layers_d=2):
        super().__init__()
        layers = []
        ch = in_channels
        for i in range(num_layers_d):
            layers.append(nn.Sequential(nn.Conv2d(ch, num_channels * 2 ** i, 4, 2, 1), nn.LeakyReLU(0.2)))
            ch = num_channels * 2 ** i
        layers.append(nn.Conv2d(ch, 1, 3, 1, 1))
        self.blocks = nn.ModuleList(layers)

    def forward(self, x):
        out = []
        for block in self.blocks:
            x = block(x)
            out.append(x)
        return out
