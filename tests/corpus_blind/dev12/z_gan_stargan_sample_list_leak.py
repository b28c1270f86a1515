# corpus: StarGAN/CIN-style multi-domain translation solver whose periodic sample() appends self.G(real_x, target_c)[0] for every target domain to fake_image_list without .detach() or no_grad, so each domain's full generator graph stays alive in the list until the grid is written (silent: memory grows with every domain sampled, the OOM the report hit)
# source: http://39.103.169.235/p/f1bd4ff84926
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


class ResidualBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(dim, dim, 3, 1, 1, bias=False), nn.InstanceNorm2d(dim, affine=True), nn.ReLU(inplace=True),
            nn.Conv2d(dim, dim, 3, 1, 1, bias=False), nn.InstanceNorm2d(dim, affine=True))

    def forward(self, x):
        return x + self.main(x)


class Generator(nn.Module):
    def __init__(self, conv_dim=8, c_dim=4, repeat_num=1):
        super().__init__()
        layers = [nn.Conv2d(3 + c_dim, conv_dim, 7, 1, 3, bias=False),
                  nn.InstanceNorm2d(conv_dim, affine=True), nn.ReLU(inplace=True)]
        for _ in range(repeat_num):
            layers.append(ResidualBlock(conv_dim))
        self.main = nn.Sequential(*layers)
        self.img_reg = nn.Sequential(nn.Conv2d(conv_dim, 3, 7, 1, 3, bias=False), nn.Tanh())
        self.attention = nn.Sequential(nn.Conv2d(conv_dim, 1, 7, 1, 3, bias=False), nn.Sigmoid())

    def forward(self, x, c):
        c = c.view(c.size(0), c.size(1), 1, 1).expand(c.size(0), c.size(1), x.size(2), x.size(3))
        h = self.main(torch.cat([x, c], dim=1))
        return self.img_reg(h), self.attention(h)


class Discriminator(nn.Module):
    def __init__(self, image_size=16, conv_dim=8, c_dim=4):
        super().__init__()
        self.main = nn.Sequential(nn.Conv2d(3, conv_dim, 4, 2, 1), nn.LeakyReLU(0.01),
                                  nn.Conv2d(conv_dim, conv_dim * 2, 4, 2, 1), nn.LeakyReLU(0.01))
        k = image_size // 4
        self.conv_src = nn.Conv2d(conv_dim * 2, 1, 3, 1, 1, bias=False)
        self.conv_cls = nn.Conv2d(conv_dim * 2, c_dim, k, bias=False)

    def forward(self, x):
        h = self.main(x)
        return self.conv_src(h), self.conv_cls(h).view(x.size(0), -1)


class Solver(object):
    def __init__(self, c_dim=4, image_size=16, num_iters=4, sample_step=2, lambda_cls=1.0, lambda_rec=10.0):
        self.c_dim = c_dim
        self.image_size = image_size
        self.num_iters = num_iters
        self.sample_step = sample_step
        self.lambda_cls = lambda_cls
        self.lambda_rec = lambda_rec
        self.saved_samples = {}
        self.build_model()

    def build_model(self):
        self.G = Generator(c_dim=self.c_dim)
        self.D = Discriminator(self.image_size, c_dim=self.c_dim)
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), 1e-4, [0.5, 0.999])
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), 1e-4, [0.5, 0.999])

    def reset_grad(self):
        self.g_optimizer.zero_grad()
        self.d_optimizer.zero_grad()

    def denorm(self, x):
        out = (x + 1) / 2
        return out.clamp_(0, 1)

    def one_hot(self, labels, dim):
        out = torch.zeros(labels.size(0), dim)
        out[np.arange(labels.size(0)), labels.long()] = 1
        return out

    def make_celeb_labels(self, batch_size):
        return [self.one_hot(torch.ones(batch_size) * i, self.c_dim) for i in range(self.c_dim)]

    def get_batch(self, batch_size=4):
        x = torch.rand(batch_size, 3, self.image_size, self.image_size) * 2 - 1
        label = torch.randint(0, self.c_dim, (batch_size,))
        return x, label

    def train(self):
        fixed_x, _ = self.get_batch()
        fixed_c_list = self.make_celeb_labels(fixed_x.size(0))
        for i in range(self.num_iters):
            real_x, real_label = self.get_batch()
            rand_idx = torch.randperm(real_label.size(0))
            fake_label = real_label[rand_idx]
            real_c = self.one_hot(real_label, self.c_dim)
            fake_c = self.one_hot(fake_label, self.c_dim)

            # ---------------- train D
            out_src, out_cls = self.D(real_x)
            d_loss_real = -torch.mean(out_src)
            d_loss_cls = F.cross_entropy(out_cls, real_label)
            fake_x, _ = self.G(real_x, fake_c)
            out_src, _ = self.D(fake_x.detach())
            d_loss_fake = torch.mean(out_src)
            d_loss = d_loss_real + d_loss_fake + self.lambda_cls * d_loss_cls
            self.reset_grad()
            d_loss.backward()
            self.d_optimizer.step()

            # ---------------- train G
            fake_x, _ = self.G(real_x, fake_c)
            rec_x, _ = self.G(fake_x, real_c)
            out_src, out_cls = self.D(fake_x)
            g_loss_fake = -torch.mean(out_src)
            g_loss_rec = torch.mean(torch.abs(real_x - rec_x))
            g_loss_cls = F.cross_entropy(out_cls, fake_label)
            g_loss = g_loss_fake + self.lambda_rec * g_loss_rec + self.lambda_cls * g_loss_cls
            self.reset_grad()
            g_loss.backward()
            self.g_optimizer.step()

            if (i + 1) % self.sample_step == 0:
                self.sample(fixed_x, fixed_c_list, i + 1)
            print("iter", i + 1, "d_loss %.4f" % d_loss.item(), "g_loss %.4f" % g_loss.item())

    def sample(self, fixed_x, fixed_c_list, step):
        fake_image_list = [fixed_x]
        for fixed_c in fixed_c_list:
            fake_image_list.append(self.G(fixed_x, fixed_c)[0])  # expect: GG301
        fake_images = torch.cat(fake_image_list, dim=3)
        grid = self.denorm(fake_images.data).permute(0, 2, 3, 1).numpy()
        self.saved_samples['{}_fake.png'.format(step)] = grid
        print("sampled", step, "graph kept for", sum(t.grad_fn is not None for t in fake_image_list), "domains")


def main():
    solver = Solver()
    solver.train()


if __name__ == "__main__":
    main()
