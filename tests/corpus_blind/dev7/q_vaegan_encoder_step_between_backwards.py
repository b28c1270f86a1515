# corpus: VAE-GAN training script backpropagates the encoder loss with retain_graph=True, steps the encoder optimizer, then backpropagates the decoder loss through the same forward pass (which reaches the encoder weights the step just changed)
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/ry85/VAE-GAN/issues/1
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import RMSprop
from torch.optim.lr_scheduler import ExponentialLR


class Encoder(nn.Module):
    def __init__(self, in_dim, z_size):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 64), nn.BatchNorm1d(64), nn.ReLU())
        self.l_mu = nn.Linear(64, z_size)
        self.l_var = nn.Linear(64, z_size)

    def forward(self, x):
        h = self.body(x)
        return self.l_mu(h), self.l_var(h)


class Decoder(nn.Module):
    def __init__(self, z_size, out_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_size, 64), nn.ReLU(), nn.Linear(64, out_dim), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, in_dim):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU())
        self.classifier = nn.Linear(32, 1)

    def forward(self, x):
        layer = self.features(x)
        return torch.sigmoid(self.classifier(layer)), layer


class VaeGan(nn.Module):
    def __init__(self, in_dim=24, z_size=8):
        super().__init__()
        self.z_size = z_size
        self.encoder = Encoder(in_dim, z_size)
        self.decoder = Decoder(z_size, in_dim)
        self.discriminator = Discriminator(in_dim)

    def forward(self, x):
        mus, log_variances = self.encoder(x)
        std = torch.exp(0.5 * log_variances)
        z = mus + std * torch.randn_like(std)
        x_tilde = self.decoder(z)
        z_p = torch.randn(x.size(0), self.z_size)
        x_p = self.decoder(z_p)
        disc_class, disc_layer = self.discriminator(torch.cat((x, x_tilde, x_p), 0))
        return x_tilde, disc_class, disc_layer, mus, log_variances

    @staticmethod
    def loss(x, x_tilde, disc_layer_original, disc_layer_predicted, disc_class_original,
             disc_class_predicted, disc_class_sampled, mus, variances):
        mse = torch.sum(0.5 * (disc_layer_original - disc_layer_predicted) ** 2, 1)
        kl = -0.5 * torch.sum(-variances.exp() - torch.pow(mus, 2) + variances + 1, 1)
        bce_dis_original = -torch.log(disc_class_original + 1e-3)
        bce_dis_predicted = -torch.log(1 - disc_class_predicted + 1e-3)
        bce_dis_sampled = -torch.log(1 - disc_class_sampled + 1e-3)
        return kl, mse, bce_dis_original, bce_dis_predicted, bce_dis_sampled


def train(net, loader, optimizers, lambda_mse):
    optimizer_encoder, optimizer_decoder, optimizer_discriminator = optimizers
    for x in loader:
        net.train()
        batch_size = len(x)
        x_tilde, disc_class, disc_layer, mus, log_variances = net(x)

        disc_layer_original = disc_layer[:batch_size]
        disc_layer_predicted = disc_layer[batch_size:-batch_size]
        disc_class_original = disc_class[:batch_size]
        disc_class_predicted = disc_class[batch_size:-batch_size]
        disc_class_sampled = disc_class[-batch_size:]

        kl, mse, bce_dis_original, bce_dis_predicted, bce_dis_sampled = VaeGan.loss(
            x, x_tilde, disc_layer_original, disc_layer_predicted, disc_class_original,
            disc_class_predicted, disc_class_sampled, mus, log_variances)

        loss_encoder = torch.sum(kl) + torch.sum(mse)
        loss_discriminator = torch.sum(bce_dis_original) + torch.sum(bce_dis_predicted) + torch.sum(bce_dis_sampled)
        loss_decoder = torch.sum(lambda_mse * mse) - (1.0 - lambda_mse) * loss_discriminator

        net.zero_grad()
        loss_encoder.backward(retain_graph=True)
        optimizer_encoder.step()  # expect: GG111
        net.zero_grad()

        loss_decoder.backward(retain_graph=True)  # also: GG111
        optimizer_decoder.step()
        net.discriminator.zero_grad()

        loss_discriminator.backward()
        optimizer_discriminator.step()
        print('encoder loss: %.5f | decoder loss: %.5f | discriminator loss: %.5f'
              % (loss_encoder.item(), loss_decoder.item(), loss_discriminator.item()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--decay_lr", type=float, default=0.75)
    parser.add_argument("--lambda_mse", type=float, default=1e-6)
    parser.add_argument("--n_epochs", type=int, default=1)
    args = parser.parse_args([])
    torch.manual_seed(8)
    net = VaeGan()
    optimizer_encoder = RMSprop(net.encoder.parameters(), lr=args.lr, alpha=0.9, eps=1e-8)
    optimizer_decoder = RMSprop(net.decoder.parameters(), lr=args.lr, alpha=0.9, eps=1e-8)
    optimizer_discriminator = RMSprop(net.discriminator.parameters(), lr=args.lr, alpha=0.9, eps=1e-8)
    schedulers = [ExponentialLR(o, gamma=args.decay_lr)
                  for o in (optimizer_encoder, optimizer_decoder, optimizer_discriminator)]
    loader = [torch.rand(8, 24) * 2 - 1 for _ in range(3)]
    for epoch in range(args.n_epochs + 1):
        train(net, loader, (optimizer_encoder, optimizer_decoder, optimizer_discriminator), args.lambda_mse)
        for s in schedulers:
            s.step()


if __name__ == "__main__":
    main()
