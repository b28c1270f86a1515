# corpus: VQ-VAE quantizer whose commitment term is meant to use sg[e] but the stop-gradient is a bare z_q.detach() statement, so beta * commitment silently also pulls the codebook toward the encoder
# source: https://github.com/MishaLaskin/vqvae/pull/20
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, n_e, e_dim, beta):
        super().__init__()
        self.n_e = n_e
        self.e_dim = e_dim
        self.beta = beta
        self.embedding = nn.Embedding(self.n_e, self.e_dim)
        self.embedding.weight.data.uniform_(-1.0 / self.n_e, 1.0 / self.n_e)

    def forward(self, z):
        z = z.permute(0, 2, 3, 1).contiguous()
        z_flattened = z.view(-1, self.e_dim)
        d = (torch.sum(z_flattened ** 2, dim=1, keepdim=True)
             + torch.sum(self.embedding.weight ** 2, dim=1)
             - 2 * torch.matmul(z_flattened, self.embedding.weight.t()))
        min_encoding_indices = torch.argmin(d, dim=1).unsqueeze(1)
        min_encodings = torch.zeros(min_encoding_indices.shape[0], self.n_e)
        min_encodings.scatter_(1, min_encoding_indices, 1)
        z_q = torch.matmul(min_encodings, self.embedding.weight).view(z.shape)

        codebook_loss = torch.mean((z_q - z.detach()) ** 2)
        z_q.detach()  # expect: GG112
        commitment_loss = torch.mean((z - z_q) ** 2)
        loss = codebook_loss + self.beta * commitment_loss

        z_q = z + (z_q - z).detach()
        e_mean = torch.mean(min_encodings, dim=0)
        perplexity = torch.exp(-torch.sum(e_mean * torch.log(e_mean + 1e-10)))
        return loss, z_q.permute(0, 3, 1, 2).contiguous(), perplexity


class VQVAE(nn.Module):
    def __init__(self, h_dim, n_embeddings, embedding_dim, beta):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, h_dim, 4, 2, 1), nn.ReLU(), nn.Conv2d(h_dim, embedding_dim, 1))
        self.vector_quantization = VectorQuantizer(n_embeddings, embedding_dim, beta)
        self.decoder = nn.Sequential(nn.ConvTranspose2d(embedding_dim, h_dim, 4, 2, 1), nn.ReLU(), nn.Conv2d(h_dim, 3, 1))

    def forward(self, x):
        z_e = self.encoder(x)
        embedding_loss, z_q, perplexity = self.vector_quantization(z_e)
        x_hat = self.decoder(z_q)
        return embedding_loss, x_hat, perplexity


def train(args):
    model = VQVAE(args.n_hiddens, args.n_embeddings, args.embedding_dim, args.beta)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, amsgrad=True)
    x_train_var = 1.0
    results = {"recon_errors": [], "loss_vals": [], "perplexities": []}
    model.train()
    for i in range(args.n_updates):
        x = torch.randn(4, 3, 8, 8)
        optimizer.zero_grad()
        embedding_loss, x_hat, perplexity = model(x)
        recon_loss = torch.mean((x_hat - x) ** 2) / x_train_var
        loss = recon_loss + embedding_loss
        loss.backward()
        optimizer.step()
        results["recon_errors"].append(recon_loss.cpu().detach().numpy())
        results["perplexities"].append(perplexity.cpu().detach().numpy())
        results["loss_vals"].append(loss.cpu().detach().numpy())
        if i % args.log_interval == 0:
            print("Update #", i, "Recon Error:", np.mean(results["recon_errors"][-args.log_interval:]),
                  "Perplexity:", np.mean(results["perplexities"][-args.log_interval:]))
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_updates", type=int, default=4)
    parser.add_argument("--n_hiddens", type=int, default=16)
    parser.add_argument("--embedding_dim", type=int, default=8)
    parser.add_argument("--n_embeddings", type=int, default=32)
    parser.add_argument("--beta", type=float, default=0.25)
    parser.add_argument("--learning_rate", type=float, default=3e-4)
    parser.add_argument("--log_interval", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train(args)


if __name__ == "__main__":
    main()
