# corpus: CTGAN-style synthesizer: Discriminator.calc_gradient_penalty calls autograd.grad with retain_graph=True but no create_graph=True, so the penalty is a constant and its own pen.backward() has nothing to differentiate
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/sdv-dev/CTGAN/issues/37
import argparse

import torch
from torch import nn


class Discriminator(nn.Module):
    def __init__(self, input_dim, discriminator_dim, pac=2):
        super().__init__()
        dim = input_dim * pac
        self.pac = pac
        self.pacdim = dim
        seq = []
        for item in list(discriminator_dim):
            seq += [nn.Linear(dim, item), nn.LeakyReLU(0.2), nn.Dropout(0.5)]
            dim = item
        seq += [nn.Linear(dim, 1)]
        self.seq = nn.Sequential(*seq)

    def calc_gradient_penalty(self, real_data, fake_data, device="cpu", pac=2, lambda_=10):
        alpha = torch.rand(real_data.size(0) // pac, 1, 1, device=device)
        alpha = alpha.repeat(1, pac, real_data.size(1))
        alpha = alpha.view(-1, real_data.size(1))

        interpolates = alpha * real_data + ((1 - alpha) * fake_data)
        interpolates.requires_grad_(True)
        disc_interpolates = self(interpolates)

        gradients = torch.autograd.grad(outputs=disc_interpolates, inputs=interpolates, grad_outputs=torch.ones(disc_interpolates.size(), device=device), retain_graph=True, only_inputs=True)[0]  # expect: GG202

        gradients_view = gradients.view(-1, pac * real_data.size(1)).norm(2, dim=1) - 1
        gradient_penalty = ((gradients_view) ** 2).mean() * lambda_
        return gradient_penalty

    def forward(self, input_):
        assert input_.size()[0] % self.pac == 0
        return self.seq(input_.view(-1, self.pacdim))


class Residual(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.fc = nn.Linear(i, o)
        self.bn = nn.BatchNorm1d(o)
        self.relu = nn.ReLU()

    def forward(self, input_):
        out = self.relu(self.bn(self.fc(input_)))
        return torch.cat([out, input_], dim=1)


class Generator(nn.Module):
    def __init__(self, embedding_dim, generator_dim, data_dim):
        super().__init__()
        dim = embedding_dim
        seq = []
        for item in list(generator_dim):
            seq += [Residual(dim, item)]
            dim += item
        seq.append(nn.Linear(dim, data_dim))
        self.seq = nn.Sequential(*seq)

    def forward(self, input_):
        return self.seq(input_)


class CTGANSynthesizer:
    def __init__(self, args):
        self._embedding_dim = args.embedding_dim
        self._batch_size = args.batch_size
        self.pac = args.pac
        self._discriminator_steps = args.discriminator_steps
        self._device = torch.device("cpu")
        self.data_dim = args.data_dim
        self._generator = Generator(self._embedding_dim, (16, 16), self.data_dim)
        self.discriminator = Discriminator(self.data_dim, (16, 16), pac=self.pac)
        self.optimizerG = torch.optim.Adam(self._generator.parameters(), lr=2e-4, betas=(0.5, 0.9))
        self.optimizerD = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4, betas=(0.5, 0.9))

    def _sample_real(self):
        return torch.randn(self._batch_size, self.data_dim)

    def fit(self, epochs):
        mean = torch.zeros(self._batch_size, self._embedding_dim)
        std = mean + 1
        for i in range(epochs):
            for n in range(self._discriminator_steps):
                fakez = torch.normal(mean=mean, std=std)
                fake = self._generator(fakez)
                real = self._sample_real()

                y_fake = self.discriminator(fake)
                y_real = self.discriminator(real)

                pen = self.discriminator.calc_gradient_penalty(real, fake, self._device, self.pac)
                loss_d = -(torch.mean(y_real) - torch.mean(y_fake))

                self.optimizerD.zero_grad(set_to_none=False)
                pen.backward(retain_graph=True)  # also: GG202
                loss_d.backward()
                self.optimizerD.step()

            fakez = torch.normal(mean=mean, std=std)
            fake = self._generator(fakez)
            y_fake = self.discriminator(fake)
            loss_g = -torch.mean(y_fake)

            self.optimizerG.zero_grad(set_to_none=False)
            loss_g.backward()
            self.optimizerG.step()
            print(f"Epoch {i + 1}, Loss G: {loss_g.item(): .4f}, Loss D: {loss_d.item(): .4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=10)
    parser.add_argument("--embedding_dim", type=int, default=8)
    parser.add_argument("--data_dim", type=int, default=6)
    parser.add_argument("--pac", type=int, default=2)
    parser.add_argument("--discriminator_steps", type=int, default=1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    CTGANSynthesizer(args).fit(args.epochs)


if __name__ == "__main__":
    main()
