# corpus: VQ-VAE with a custom nearest-embedding autograd.Function (straight-through gradient to the encoder, averaged gradient to the codebook), weights initialised in place through .detach(), and vq/commitment losses that stop gradients with .detach() on the other side; the per-batch losses are logged with .item()
# source: https://github.com/nadavbh12/VQ-VAE/issues/15
import random

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Function

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


class NearestEmbedFunc(Function):
    @staticmethod
    def forward(ctx, input, emb):
        if input.size(1) != emb.size(0):
            raise RuntimeError('invalid argument: input.size(1) ({}) must be equal to emb.size(0) ({})'.format(
                input.size(1), emb.size(0)))
        ctx.batch_size = input.size(0)
        ctx.num_latents = int(np.prod(np.array(input.size()[2:])))
        ctx.emb_dim = emb.size(0)
        ctx.num_emb = emb.size(1)
        ctx.dims = list(range(len(input.size())))

        x_expanded = input.unsqueeze(-1)
        num_arbitrary_dims = len(ctx.dims) - 2
        if num_arbitrary_dims:
            emb_expanded = emb.view(emb.shape[0], *([1] * num_arbitrary_dims), emb.shape[1])
        else:
            emb_expanded = emb

        dist = torch.norm(x_expanded - emb_expanded, 2, 1)
        _, argmin = dist.min(-1)
        shifted_shape = [input.shape[0], *list(input.shape[2:]), input.shape[1]]
        result = emb.t().index_select(0, argmin.view(-1)).view(shifted_shape).permute(0, ctx.dims[-1], *ctx.dims[1:-1])
        ctx.save_for_backward(argmin)
        return result.contiguous(), argmin

    @staticmethod
    def backward(ctx, grad_output, argmin=None):
        grad_input = grad_emb = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output
        if ctx.needs_input_grad[1]:
            argmin, = ctx.saved_tensors
            latent_indices = torch.arange(ctx.num_emb).type_as(argmin)
            idx_choices = (argmin.view(-1, 1) == latent_indices.view(1, -1)).type_as(grad_output.data)
            n_idx_choice = idx_choices.sum(0)
            n_idx_choice[n_idx_choice == 0] = 1
            idx_avg_choices = idx_choices / n_idx_choice
            grad_output = grad_output.permute(0, *ctx.dims[2:], 1).contiguous()
            grad_output = grad_output.view(ctx.batch_size * ctx.num_latents, ctx.emb_dim)
            grad_emb = torch.sum(grad_output.data.view(-1, ctx.emb_dim, 1) *
                                 idx_avg_choices.view(-1, 1, ctx.num_emb), 0)
        return grad_input, grad_emb


def nearest_embed(x, emb):
    return NearestEmbedFunc.apply(x, emb)


class NearestEmbed(nn.Module):
    def __init__(self, num_embeddings, embeddings_dim):
        super(NearestEmbed, self).__init__()
        self.weight = nn.Parameter(torch.rand(embeddings_dim, num_embeddings))

    def forward(self, x, weight_sg=False):
        return nearest_embed(x, self.weight.detach() if weight_sg else self.weight)


class ResBlock(nn.Module):
    def __init__(self, in_channels, out_channels, mid_channels=None, bn=False):
        super(ResBlock, self).__init__()
        if mid_channels is None:
            mid_channels = out_channels
        layers = [nn.ReLU(), nn.Conv2d(in_channels, mid_channels, kernel_size=3, stride=1, padding=1),
                  nn.ReLU(), nn.Conv2d(mid_channels, out_channels, kernel_size=1, stride=1, padding=0)]
        if bn:
            layers.insert(2, nn.BatchNorm2d(out_channels))
        self.convs = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.convs(x)


class VQ_CVAE(nn.Module):
    def __init__(self, d, k=10, bn=True, vq_coef=1, commit_coef=0.5, num_channels=3):
        super(VQ_CVAE, self).__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(num_channels, d, kernel_size=4, stride=2, padding=1), nn.BatchNorm2d(d), nn.ReLU(inplace=True),
            nn.Conv2d(d, d, kernel_size=4, stride=2, padding=1), nn.BatchNorm2d(d), nn.ReLU(inplace=True),
            ResBlock(d, d, bn=bn), nn.BatchNorm2d(d),
        )
        self.decoder = nn.Sequential(
            ResBlock(d, d), nn.BatchNorm2d(d),
            nn.ConvTranspose2d(d, d, kernel_size=4, stride=2, padding=1), nn.BatchNorm2d(d), nn.ReLU(inplace=True),
            nn.ConvTranspose2d(d, num_channels, kernel_size=4, stride=2, padding=1),
        )
        self.d = d
        self.emb = NearestEmbed(k, d)
        self.vq_coef = vq_coef
        self.commit_coef = commit_coef
        self.mse = 0
        self.vq_loss = torch.zeros(1)
        self.commit_loss = 0

        for l in self.modules():
            if isinstance(l, nn.Linear) or isinstance(l, nn.Conv2d):
                l.weight.detach().normal_(0, 0.02)
                torch.fmod(l.weight, 0.04)
                nn.init.constant_(l.bias, 0)
        self.encoder[-1].weight.detach().fill_(1 / 40)
        self.emb.weight.detach().normal_(0, 0.02)

    def encode(self, x):
        return self.encoder(x)

    def decode(self, x):
        return torch.tanh(self.decoder(x))

    def forward(self, x):
        z_e = self.encode(x)
        self.f = z_e.shape[-1]
        z_q, argmin = self.emb(z_e, weight_sg=True)
        emb, _ = self.emb(z_e.detach())
        return self.decode(z_q), z_e, emb, argmin

    def loss_function(self, x, recon_x, z_e, emb, argmin):
        self.mse = F.mse_loss(recon_x, x)
        self.vq_loss = torch.mean(torch.norm((emb - z_e.detach()) ** 2, 2, 1))
        self.commit_loss = torch.mean(torch.norm((emb.detach() - z_e) ** 2, 2, 1))
        return self.mse + self.vq_coef * self.vq_loss + self.commit_coef * self.commit_loss

    def latest_losses(self):
        return {'mse': self.mse, 'vq': self.vq_loss, 'commitment': self.commit_loss}


def train(epoch, model, train_loader, optimizer, log_interval):
    model.train()
    loss_dict = model.latest_losses()
    losses = {k + '_train': 0 for k, v in loss_dict.items()}
    epoch_losses = {k + '_train': 0 for k, v in loss_dict.items()}
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        outputs = model(data)
        loss = model.loss_function(data, *outputs)
        loss.backward()
        optimizer.step()
        latest_losses = model.latest_losses()
        for key in latest_losses:
            losses[key + '_train'] += latest_losses[key].item()
            epoch_losses[key + '_train'] += latest_losses[key].item()
        if batch_idx % log_interval == 0:
            for key in latest_losses:
                losses[key + '_train'] /= log_interval
            print('Train Epoch: {} [{}]  {}'.format(epoch, batch_idx, ' '.join(
                '{}: {:.6f}'.format(k, v) for k, v in losses.items())))
            for key in latest_losses:
                losses[key + '_train'] = 0
    for key in epoch_losses:
        epoch_losses[key] /= len(train_loader)
    return epoch_losses


def main():
    model = VQ_CVAE(d=8, k=6)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
    train_loader = [(torch.rand(4, 3, 16, 16) * 2 - 1, torch.zeros(4)) for _ in range(3)]
    for epoch in range(1, 3):
        print(train(epoch, model, train_loader, optimizer, log_interval=2))


if __name__ == "__main__":
    main()
