# corpus: VQ-VAE with the straight-through estimator inputs + (quantized - inputs).detach(), codebook loss on sg[inputs] and commitment loss on sg[quantized], reconstruction error tracked with .item() (correct)
# source: https://github.com/zalandoresearch/pytorch-vq-vae/issues/6
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost):
        super().__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.uniform_(-1 / self._num_embeddings, 1 / self._num_embeddings)
        self._commitment_cost = commitment_cost

    def forward(self, inputs):
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        flat_input = inputs.view(-1, self._embedding_dim)
        distances = (torch.sum(flat_input ** 2, dim=1, keepdim=True)
                     + torch.sum(self._embedding.weight ** 2, dim=1)
                     - 2 * torch.matmul(flat_input, self._embedding.weight.t()))
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self._num_embeddings)
        encodings.scatter_(1, encoding_indices, 1)
        quantized = torch.matmul(encodings, self._embedding.weight).view(input_shape)

        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        q_latent_loss = F.mse_loss(quantized, inputs.detach())
        loss = q_latent_loss + self._commitment_cost * e_latent_loss

        quantized = inputs + (quantized - inputs).detach()
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class Model(nn.Module):
    def __init__(self, num_hiddens, num_embeddings, embedding_dim, commitment_cost):
        super().__init__()
        self._encoder = nn.Sequential(nn.Conv2d(3, num_hiddens, 4, 2, 1), nn.ReLU(True))
        self._pre_vq_conv = nn.Conv2d(num_hiddens, embedding_dim, 1)
        self._vq_vae = VectorQuantizer(num_embeddings, embedding_dim, commitment_cost)
        self._decoder = nn.Sequential(nn.ConvTranspose2d(embedding_dim, num_hiddens, 4, 2, 1), nn.ReLU(True), nn.Conv2d(num_hiddens, 3, 1))

    def forward(self, x):
        z = self._pre_vq_conv(self._encoder(x))
        loss, quantized, perplexity, _ = self._vq_vae(z)
        x_recon = self._decoder(quantized)
        return loss, x_recon, perplexity


def main():
    torch.manual_seed(0)
    model = Model(num_hiddens=16, num_embeddings=32, embedding_dim=8, commitment_cost=0.25)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, amsgrad=False)
    data_variance = 1.0
    train_res_recon_error = []
    train_res_perplexity = []
    model.train()
    for i in range(6):
        data = torch.randn(4, 3, 8, 8)
        optimizer.zero_grad()
        vq_loss, data_recon, perplexity = model(data)
        recon_error = F.mse_loss(data_recon, data) / data_variance
        loss = recon_error + vq_loss
        loss.backward()
        optimizer.step()
        train_res_recon_error.append(recon_error.item())
        train_res_perplexity.append(perplexity.item())
        if (i + 1) % 3 == 0:
            print("%d iterations" % (i + 1), "recon_error: %.3f" % np.mean(train_res_recon_error[-3:]),
                  "perplexity: %.3f" % np.mean(train_res_perplexity[-3:]))
    assert model._encoder[0].weight.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
