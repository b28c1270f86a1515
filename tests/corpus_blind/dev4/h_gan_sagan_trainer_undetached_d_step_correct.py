# corpus: SAGAN trainer (self-attention G and D, hinge loss): the D step feeds the undetached fake_images to D, but the G step samples a fresh z and regenerates fake_images, and reset_grad() clears both networks before each backward, so nothing is reused or double counted; correct (the missing detach only costs a wasted backward through G)
# source: https://github.com/heykeetae/Self-Attention-GAN/issues/48
from types import SimpleNamespace

import torch
import torch.nn as nn
from torch.nn.utils import spectral_norm as SpectralNorm


class Self_Attn(nn.Module):
    """Self attention layer"""

    def __init__(self, in_dim):
        super().__init__()
        self.query_conv = nn.Conv2d(in_dim, in_dim // 2, kernel_size=1)
        self.key_conv = nn.Conv2d(in_dim, in_dim // 2, kernel_size=1)
        self.value_conv = nn.Conv2d(in_dim, in_dim, kernel_size=1)
        self.gamma = nn.Parameter(torch.zeros(1))
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        m_batchsize, C, width, height = x.size()
        proj_query = self.query_conv(x).view(m_batchsize, -1, width * height).permute(0, 2, 1)
        proj_key = self.key_conv(x).view(m_batchsize, -1, width * height)
        energy = torch.bmm(proj_query, proj_key)
        attention = self.softmax(energy)
        proj_value = self.value_conv(x).view(m_batchsize, -1, width * height)
        out = torch.bmm(proj_value, attention.permute(0, 2, 1))
        out = out.view(m_batchsize, C, width, height)
        out = self.gamma * out + x
        return out, attention


class Generator(nn.Module):
    def __init__(self, z_dim=8, conv_dim=8, image_size=8):
        super().__init__()
        self.conv_dim = conv_dim
        self.l1 = nn.Sequential(SpectralNorm(nn.ConvTranspose2d(z_dim, conv_dim, 4)), nn.BatchNorm2d(conv_dim), nn.ReLU())
        self.l2 = nn.Sequential(SpectralNorm(nn.ConvTranspose2d(conv_dim, conv_dim, 4, 2, 1)), nn.BatchNorm2d(conv_dim), nn.ReLU())
        self.attn1 = Self_Attn(conv_dim)
        self.last = nn.Sequential(nn.Conv2d(conv_dim, 3, 3, 1, 1), nn.Tanh())

    def forward(self, z):
        z = z.view(z.size(0), z.size(1), 1, 1)
        out = self.l1(z)
        out = self.l2(out)
        out, p1 = self.attn1(out)
        out = self.last(out)
        return out, p1, None


class Discriminator(nn.Module):
    def __init__(self, conv_dim=8):
        super().__init__()
        self.l1 = nn.Sequential(SpectralNorm(nn.Conv2d(3, conv_dim, 4, 2, 1)), nn.LeakyReLU(0.1))
        self.attn1 = Self_Attn(conv_dim)
        self.last = nn.Conv2d(conv_dim, 1, 4)

    def forward(self, x):
        out = self.l1(x)
        out, p1 = self.attn1(out)
        out = self.last(out)
        return out.squeeze(), p1, None


class Trainer:
    def __init__(self, data_loader, config):
        self.data_loader = data_loader
        self.z_dim = config.z_dim
        self.total_step = config.total_step
        self.adv_loss = config.adv_loss
        self.G = Generator(config.z_dim, config.g_conv_dim, config.imsize)
        self.D = Discriminator(config.d_conv_dim)
        self.g_optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, self.G.parameters()), config.g_lr, [config.beta1, config.beta2])
        self.d_optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, self.D.parameters()), config.d_lr, [config.beta1, config.beta2])
        self.log = []

    def reset_grad(self):
        self.d_optimizer.zero_grad()
        self.g_optimizer.zero_grad()

    def train(self):
        data_iter = iter(self.data_loader)
        for step in range(self.total_step):
            # ================== Train D ================== #
            self.D.train()
            self.G.train()
            try:
                real_images = next(data_iter)
            except StopIteration:
                data_iter = iter(self.data_loader)
                real_images = next(data_iter)

            d_out_real, dr1, dr2 = self.D(real_images)
            d_loss_real = torch.nn.ReLU()(1.0 - d_out_real).mean()

            # apply Gumbel Softmax
            z = torch.randn(real_images.size(0), self.z_dim)
            fake_images, gf1, gf2 = self.G(z)
            d_out_fake, df1, df2 = self.D(fake_images)
            d_loss_fake = torch.nn.ReLU()(1.0 + d_out_fake).mean()

            # Backward + Optimize
            d_loss = d_loss_real + d_loss_fake
            self.reset_grad()
            d_loss.backward()
            self.d_optimizer.step()

            # ================== Train G and gumbel ================== #
            # Create random noise
            z = torch.randn(real_images.size(0), self.z_dim)
            fake_images, _, _ = self.G(z)

            # Compute loss with fake images
            g_out_fake, _, _ = self.D(fake_images)
            g_loss_fake = -g_out_fake.mean()

            self.reset_grad()
            g_loss_fake.backward()
            self.g_optimizer.step()

            self.log.append({"step": step, "d_loss_real": d_loss_real.item(), "d_loss_fake": d_loss_fake.item(),
                             "g_loss_fake": g_loss_fake.item(), "attn_gamma": self.G.attn1.gamma.item()})
            print(self.log[-1])


def main():
    torch.manual_seed(0)
    config = SimpleNamespace(z_dim=8, g_conv_dim=8, d_conv_dim=8, imsize=8, total_step=3, adv_loss="hinge",
                             g_lr=1e-4, d_lr=4e-4, beta1=0.0, beta2=0.9)
    data_loader = [torch.rand(4, 3, 8, 8) * 2 - 1 for _ in range(2)]
    Trainer(data_loader, config).train()


if __name__ == "__main__":
    main()
