# corpus: PATECTGAN (PATE + CTGAN) synthesizer: the student discriminator is fit to the teachers' noisy votes for student_iters steps, but its loop calls loss_s.backward() and optimizerS.step() with no optimizerS.zero_grad(), so student gradients pile up across steps and epochs, and the generator step's backward through student_disc adds its gradients too (silent: the student steps on stale accumulated gradients)
# source: https://github.com/opendp/smartnoise-sdk/issues/280
import random

import numpy as np
import torch
import torch.nn as nn
from torch import optim

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


class Generator(nn.Module):
    def __init__(self, embedding_dim, gen_dims, data_dim):
        super().__init__()
        dims, seq = embedding_dim, []
        for item in gen_dims:
            seq += [nn.Linear(dims, item), nn.BatchNorm1d(item), nn.ReLU()]
            dims = item
        seq.append(nn.Linear(dims, data_dim))
        self.seq = nn.Sequential(*seq)

    def forward(self, input):
        return self.seq(input)


class Discriminator(nn.Module):
    def __init__(self, input_dim, dis_dims):
        super().__init__()
        dims, seq = input_dim, []
        for item in dis_dims:
            seq += [nn.Linear(dims, item), nn.LeakyReLU(0.2)]
            dims = item
        seq += [nn.Linear(dims, 1), nn.Sigmoid()]
        self.seq = nn.Sequential(*seq)

    def forward(self, input):
        return self.seq(input).view(-1)


def weights_init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight.data, 0.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


def pate(data, teachers, lap_scale):
    num_teachers = len(teachers)
    labels = torch.Tensor(num_teachers, data.shape[0]).type(torch.int64)
    for i in range(num_teachers):
        output = teachers[i](data)
        pred = (output > 0.5).type(torch.Tensor).squeeze()
        labels[i] = pred
    votes = torch.sum(labels, dim=0).unsqueeze(1).type(torch.DoubleTensor)
    noise = torch.from_numpy(np.random.laplace(loc=0, scale=1 / lap_scale, size=votes.size()))
    noisy_votes = votes + noise
    noisy_labels = (noisy_votes > num_teachers / 2).type(torch.DoubleTensor)
    return noisy_labels, votes


def moments_acc(num_teachers, votes, lap_scale, l_list):
    q = (2 + lap_scale * torch.abs(2 * votes - num_teachers)) / (
        4 * torch.exp(lap_scale * torch.abs(2 * votes - num_teachers)))
    update = []
    for l in l_list:
        a = 2 * lap_scale ** 2 * l * (l + 1)
        t_one = (1 - q) * torch.pow((1 - q) / (1 - np.exp(2 * lap_scale) * q), l)
        t_two = q * torch.exp(2 * lap_scale * l)
        t = t_one + t_two
        update.append(torch.clamp(t, max=a).sum())
    return torch.tensor(update, dtype=torch.float64)


class PATECTGAN:
    def __init__(self, embedding_dim=8, gen_dim=(16,), dis_dim=(16,), batch_size=16,
                 num_teachers=3, teacher_iters=2, student_iters=3, epochs=3):
        self.embedding_dim = embedding_dim
        self.gen_dim = gen_dim
        self.dis_dim = dis_dim
        self.batch_size = batch_size
        self.num_teachers = num_teachers
        self.teacher_iters = teacher_iters
        self.student_iters = student_iters
        self.epochs = epochs

    def _sample(self, data):
        idx = np.random.randint(0, len(data), self.batch_size)
        return torch.from_numpy(data[idx].astype('float32'))

    def train(self, data):
        data_dim = data.shape[1]
        data_partitions = np.array_split(data, self.num_teachers)
        self.generator = Generator(self.embedding_dim, self.gen_dim, data_dim)

        student_disc = Discriminator(data_dim, self.dis_dim)
        student_disc.apply(weights_init)
        teacher_disc = [Discriminator(data_dim, self.dis_dim) for i in range(self.num_teachers)]
        for i in range(self.num_teachers):
            teacher_disc[i].apply(weights_init)

        optimizerG = optim.Adam(self.generator.parameters(), lr=2e-4, betas=(0.5, 0.9))
        optimizerS = optim.Adam(student_disc.parameters(), lr=2e-4, betas=(0.5, 0.9))
        optimizerT = [optim.Adam(teacher_disc[i].parameters(), lr=2e-4, betas=(0.5, 0.9))
                      for i in range(self.num_teachers)]
        criterion = nn.BCELoss()

        noise_multiplier = 1e-3
        alphas = torch.tensor([0.0 for i in range(20)], dtype=torch.float64)
        l_list = 1 + torch.tensor(range(20))
        mean = torch.zeros(self.batch_size, self.embedding_dim)
        std = mean + 1
        REAL_LABEL, FAKE_LABEL = 1, 0

        for epoch in range(self.epochs):
            # train teacher discriminators
            for t_2 in range(self.teacher_iters):
                for i in range(self.num_teachers):
                    real = self._sample(data_partitions[i])
                    fakez = torch.normal(mean, std=std)
                    fake = self.generator(fakez).detach()

                    optimizerT[i].zero_grad()
                    y_fake = teacher_disc[i](fake)
                    label_fake = torch.full((self.batch_size,), FAKE_LABEL, dtype=torch.float)
                    y_real = teacher_disc[i](real)
                    label_true = torch.full((self.batch_size,), REAL_LABEL, dtype=torch.float)
                    loss_d = criterion(y_fake, label_fake) + criterion(y_real, label_true)
                    loss_d.backward()
                    optimizerT[i].step()

            # train student discriminator
            for t_3 in range(self.student_iters):
                fakez = torch.normal(mean, std=std)
                fake = self.generator(fakez)
                fake_data = fake
                predictions, votes = pate(fake_data, teacher_disc, noise_multiplier)
                output = student_disc(fake_data.detach())
                alphas = alphas + moments_acc(self.num_teachers, votes, noise_multiplier, l_list)
                loss_s = criterion(output, predictions.float().squeeze())
                loss_s.backward()  # expect: GG201
                optimizerS.step()

            # train generator
            fakez = torch.normal(mean=mean, std=std)
            fake = self.generator(fakez)
            y_fake = student_disc(fake)
            label_g = torch.full((self.batch_size,), REAL_LABEL, dtype=torch.float)
            loss_g = criterion(y_fake, label_g)
            optimizerG.zero_grad()
            loss_g.backward()
            optimizerG.step()

            grad_norm = sum(p.grad.norm().item() for p in student_disc.parameters())
            print("epoch", epoch, "loss_s %.4f" % loss_s.item(), "loss_g %.4f" % loss_g.item(),
                  "student grad norm %.4f" % grad_norm)
        return alphas


def main():
    data = np.random.rand(96, 5)
    synth = PATECTGAN()
    synth.train(data)


if __name__ == "__main__":
    main()
