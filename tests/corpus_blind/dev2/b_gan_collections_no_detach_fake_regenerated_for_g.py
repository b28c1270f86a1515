# corpus: generative-model-collections GAN class feeds G_ = self.G(z_) to D without detach in the D step, but regenerates G_ for the G step and zeroes G's grads first, logging losses with .item() (correct, only wasteful)
# source: https://github.com/znxlwm/pytorch-generative-model-collections/issues/4
import time
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.optim as optim


class generator(nn.Module):
    def __init__(self, input_dim=8, output_dim=16):
        super(generator, self).__init__()
        self.fc = nn.Sequential(nn.Linear(input_dim, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, output_dim), nn.Tanh())

    def forward(self, input):
        return self.fc(input)


class discriminator(nn.Module):
    def __init__(self, input_dim=16):
        super(discriminator, self).__init__()
        self.fc = nn.Sequential(nn.Linear(input_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, input):
        return self.fc(input)


class GAN(object):
    def __init__(self, args):
        self.epoch, self.batch_size, self.z_dim = args.epoch, args.batch_size, args.z_dim
        self.data_loader = [torch.rand(self.batch_size, 16) * 2 - 1 for _ in range(3)]
        self.G = generator(input_dim=self.z_dim)
        self.D = discriminator()
        self.G_optimizer = optim.Adam(self.G.parameters(), lr=args.lrG, betas=(args.beta1, args.beta2))
        self.D_optimizer = optim.Adam(self.D.parameters(), lr=args.lrD, betas=(args.beta1, args.beta2))
        self.BCE_loss = nn.BCELoss()

    def train(self):
        self.train_hist = {'D_loss': [], 'G_loss': [], 'per_epoch_time': []}
        self.y_real_, self.y_fake_ = torch.ones(self.batch_size, 1), torch.zeros(self.batch_size, 1)
        self.D.train()
        for epoch in range(self.epoch):
            self.G.train()
            epoch_start_time = time.time()
            for iter, x_ in enumerate(self.data_loader):
                z_ = torch.rand((self.batch_size, self.z_dim))

                # update D network
                self.D_optimizer.zero_grad()
                D_real = self.D(x_)
                D_real_loss = self.BCE_loss(D_real, self.y_real_)
                G_ = self.G(z_)
                D_fake = self.D(G_)
                D_fake_loss = self.BCE_loss(D_fake, self.y_fake_)
                D_loss = D_real_loss + D_fake_loss
                self.train_hist['D_loss'].append(D_loss.item())
                D_loss.backward()
                self.D_optimizer.step()

                # update G network
                self.G_optimizer.zero_grad()
                G_ = self.G(z_)
                D_fake = self.D(G_)
                G_loss = self.BCE_loss(D_fake, self.y_real_)
                self.train_hist['G_loss'].append(G_loss.item())
                G_loss.backward()
                self.G_optimizer.step()
            self.train_hist['per_epoch_time'].append(time.time() - epoch_start_time)
            print("Epoch: [%2d] D_loss: %.8f, G_loss: %.8f" % (epoch + 1, D_loss.item(), G_loss.item()))
        return self.train_hist


if __name__ == '__main__':
    torch.manual_seed(0)
    args = SimpleNamespace(epoch=2, batch_size=8, z_dim=8, lrG=2e-4, lrD=2e-4, beta1=0.5, beta2=0.999)
    GAN(args).train()
