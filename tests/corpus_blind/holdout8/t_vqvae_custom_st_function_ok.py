# corpus: VQ-VAE whose quantizer is a pair of custom torch.autograd.Function classes (nearest-code search and a straight-through function saving indices with ctx.save_for_backward), fed the detached codebook so only the VQ loss trains the embedding (correct)
# source: https://github.com/ritheshkumar95/pytorch-vqvae/issues/7
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function


class VectorQuantization(Function):
    @staticmethod
    def forward(ctx, inputs, codebook):
        with torch.no_grad():
            embedding_size = codebook.size(1)
            inputs_flatten = inputs.view(-1, embedding_size)
            codebook_sqr = torch.sum(codebook ** 2, dim=1)
            inputs_sqr = torch.sum(inputs_flatten ** 2, dim=1, keepdim=True)
            distances = torch.addmm(codebook_sqr + inputs_sqr, inputs_flatten, codebook.t(), alpha=-2.0, beta=1.0)
            _, indices_flatten = torch.min(distances, dim=1)
            indices = indices_flatten.view(*inputs.size()[:-1])
            ctx.mark_non_differentiable(indices)
            return indices

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError("Trying to call `.grad()` on graph containing `VectorQuantization`.")


class VectorQuantizationStraightThrough(Function):
    @staticmethod
    def forward(ctx, inputs, codebook):
        indices = vq(inputs, codebook)
        indices_flatten = indices.view(-1)
        ctx.save_for_backward(indices_flatten, codebook)
        ctx.mark_non_differentiable(indices_flatten)
        codes_flatten = torch.index_select(codebook, dim=0, index=indices_flatten)
        codes = codes_flatten.view_as(inputs)
        return codes, indices_flatten

    @staticmethod
    def backward(ctx, grad_output, grad_indices):
        grad_inputs, grad_codebook = None, None
        if ctx.needs_input_grad[0]:
            grad_inputs = grad_output.clone()
        if ctx.needs_input_grad[1]:
            indices, codebook = ctx.saved_tensors
            embedding_size = codebook.size(1)
            grad_output_flatten = grad_output.contiguous().view(-1, embedding_size)
            grad_codebook = torch.zeros_like(codebook)
            grad_codebook.index_add_(0, indices, grad_output_flatten)
        return grad_inputs, grad_codebook


vq = VectorQuantization.apply
vq_st = VectorQuantizationStraightThrough.apply


class VQEmbedding(nn.Module):
    def __init__(self, K, D):
        super().__init__()
        self.embedding = nn.Embedding(K, D)
        self.embedding.weight.data.uniform_(-1.0 / K, 1.0 / K)

    def straight_through(self, z_e_x):
        z_e_x_ = z_e_x.permute(0, 2, 3, 1).contiguous()
        z_q_x_, indices = vq_st(z_e_x_, self.embedding.weight.detach())
        z_q_x = z_q_x_.permute(0, 3, 1, 2).contiguous()
        z_q_x_bar_flatten = torch.index_select(self.embedding.weight, dim=0, index=indices)
        z_q_x_bar = z_q_x_bar_flatten.view_as(z_e_x_).permute(0, 3, 1, 2).contiguous()
        return z_q_x, z_q_x_bar


class VectorQuantizedVAE(nn.Module):
    def __init__(self, input_dim, dim, K):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(input_dim, dim, 4, 2, 1), nn.ReLU(True), nn.Conv2d(dim, dim, 1))
        self.codebook = VQEmbedding(K, dim)
        self.decoder = nn.Sequential(nn.ConvTranspose2d(dim, dim, 4, 2, 1), nn.ReLU(True), nn.Conv2d(dim, input_dim, 1), nn.Tanh())

    def forward(self, x):
        z_e_x = self.encoder(x)
        z_q_x_st, z_q_x = self.codebook.straight_through(z_e_x)
        x_tilde = self.decoder(z_q_x_st)
        return x_tilde, z_e_x, z_q_x


def train(data_loader, model, optimizer, args):
    for images in data_loader:
        optimizer.zero_grad()
        x_tilde, z_e_x, z_q_x = model(images)
        loss_recons = F.mse_loss(x_tilde, images)
        loss_vq = F.mse_loss(z_q_x, z_e_x.detach())
        loss_commit = F.mse_loss(z_e_x, z_q_x.detach())
        loss = loss_recons + loss_vq + args.beta * loss_commit
        loss.backward()
        optimizer.step()
        args.steps += 1
    return loss_recons.item(), loss_vq.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden-size", type=int, default=16)
    parser.add_argument("--k", type=int, default=32)
    parser.add_argument("--beta", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--num-epochs", type=int, default=2)
    args = parser.parse_args([])
    args.steps = 0
    torch.manual_seed(0)
    model = VectorQuantizedVAE(3, args.hidden_size, args.k)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loader = [torch.rand(4, 3, 8, 8) * 2 - 1 for _ in range(3)]
    for epoch in range(args.num_epochs):
        print(epoch, train(loader, model, optimizer, args))
    assert model.encoder[0].weight.grad.abs().sum() > 0
    assert model.codebook.embedding.weight.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
