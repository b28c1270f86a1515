# corpus: CTGAN-style tabular WGAN-GP trainer whose Discriminator.calc_gradient_penalty calls autograd.grad without create_graph=True, so the penalty added to the critic loss is a constant and never reaches the critic weights
# source: https://github.com/ooples/AiDotNet/issues/1844
import argparse

import torch
import torch.nn as nn
from torch.nn import functional as F


class Discriminator(nn.Module):
    def __init__(self, input_dim, discriminator_dim=(64, 64), pac=4):
        super().__init__()
        dim = input_dim * pac
        self.pac = pac
        self.pacdim = dim
        seq = []
        for item in discriminator_dim:
            seq += [nn.Linear(dim, item), nn.LeakyReLU(0.2), nn.Dropout(0.5)]
            dim = item
        seq += [nn.Linear(dim, 1)]
        self.seq = nn.Sequential(*seq)

    def calc_gradient_penalty(self, real_data, fake_data, pac=4, lambda_=10):
        alpha = torch.rand(real_data.size(0) // pac, 1, 1)
        alpha = alpha.repeat(1, pac, real_data.size(1)).view(-1, real_data.size(1))
        interpolates = alpha * real_data + ((1 - alpha) * fake_data)
        interpolates.requires_grad_(True)
        disc_interpolates = self(interpolates)
        gradients = torch.autograd.grad(outputs=disc_interpolates, inputs=interpolates, grad_outputs=torch.ones(disc_interpolates.size()), retain_graph=True, only_inputs=True)[0]  # expect: GG202
        gradients_view = gradients.view(-1, pac * real_data.size(1)).norm(2, dim=1) - 1
        return ((gradients_view) ** 2).mean() * lambda_

    def forward(self, input_):
        assert input_.size()[0] % self.pac == 0
        return self.seq(input_.view(-1, self.pacdim))


class Generator(nn.Module):
    def __init__(self, embedding_dim, generator_dim, data_dim):
        super().__init__()
        seq = []
        dim = embedding_dim
        for item in generator_dim:
            seq += [nn.Linear(dim, item), nn.BatchNorm1d(item), nn.ReLU()]
            dim = item
        seq.append(nn.Linear(dim, data_dim))
        self.seq = nn.Sequential(*seq)

    def forward(self, input_):
        return self.seq(input_)


class CTGANSynthesizer:
    def __init__(self, embedding_dim=16, batch_size=32, discriminator_steps=1, pac=4, epochs=2):
        self._embedding_dim = embedding_dim
        self._batch_size = batch_size
        self._discriminator_steps = discriminator_steps
        self.pac = pac
        self._epochs = epochs
        self.loss_values = []

    def _apply_activate(self, data):
        return torch.tanh(data)

    def fit(self, train_data):
        data_dim = train_data.size(1)
        self._generator = Generator(self._embedding_dim, (64, 64), data_dim)
        discriminator = Discriminator(data_dim, pac=self.pac)
        optimizerG = torch.optim.Adam(self._generator.parameters(), lr=2e-4, betas=(0.5, 0.9))
        optimizerD = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.9))
        mean = torch.zeros(self._batch_size, self._embedding_dim)
        std = mean + 1
        steps_per_epoch = max(len(train_data) // self._batch_size, 1)

        for i in range(self._epochs):
            for id_ in range(steps_per_epoch):
                for n in range(self._discriminator_steps):
                    fakez = torch.normal(mean=mean, std=std)
                    real = train_data[torch.randint(0, len(train_data), (self._batch_size,))]
                    fake = self._generator(fakez)
                    fakeact = self._apply_activate(fake)

                    y_fake = discriminator(fakeact)
                    y_real = discriminator(real)

                    pen = discriminator.calc_gradient_penalty(real, fakeact, self.pac)
                    loss_d = -(torch.mean(y_real) - torch.mean(y_fake))

                    optimizerD.zero_grad(set_to_none=False)
                    (loss_d + pen).backward()
                    optimizerD.step()

                fakez = torch.normal(mean=mean, std=std)
                fake = self._generator(fakez)
                fakeact = self._apply_activate(fake)
                y_fake = discriminator(fakeact)
                loss_g = -torch.mean(y_fake)

                optimizerG.zero_grad(set_to_none=False)
                loss_g.backward()
                optimizerG.step()

            self.loss_values.append((i, loss_g.detach().cpu().item(), loss_d.detach().cpu().item()))
            print(f"Epoch {i + 1}, Loss G: {loss_g.item(): .4f},Loss D: {loss_d.item(): .4f}, GP: {pen.item(): .4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=32)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train_data = torch.randn(96, 6)
    CTGANSynthesizer(batch_size=args.batch_size, epochs=args.epochs).fit(train_data)


if __name__ == "__main__":
    main()
