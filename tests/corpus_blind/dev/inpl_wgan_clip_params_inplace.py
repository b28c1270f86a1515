# corpus: WGAN trainer clips critic weights with p.clamp_() directly on the parameters (no .data / no_grad), which autograd forbids on leaves
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/znxlwm/pytorch-generative-model-collections/issues/31
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=4, out_dim=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 16), nn.ReLU(), nn.Linear(16, out_dim))

    def forward(self, z):
        return self.net(z)


class Critic(nn.Module):
    def __init__(self, in_dim=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


class WGAN:
    def __init__(self, clip_value=0.01, n_critic=2, z_dim=4):
        self.G = Generator(z_dim)
        self.D = Critic()
        self.G_optimizer = torch.optim.RMSprop(self.G.parameters(), lr=5e-5)
        self.D_optimizer = torch.optim.RMSprop(self.D.parameters(), lr=5e-5)
        self.c = clip_value
        self.n_critic = n_critic
        self.z_dim = z_dim

    def train_iter(self, x_, it):
        z_ = torch.randn(x_.size(0), self.z_dim)
        self.D_optimizer.zero_grad()
        D_real_loss = -torch.mean(self.D(x_))
        D_fake_loss = torch.mean(self.D(self.G(z_).detach()))
        D_loss = D_real_loss + D_fake_loss
        D_loss.backward()
        self.D_optimizer.step()

        # clipping D
        for p in self.D.parameters():
            p.clamp_(-self.c, self.c)  # expect: GG108

        if (it + 1) % self.n_critic == 0:
            self.G_optimizer.zero_grad()
            G_loss = -torch.mean(self.D(self.G(z_)))
            G_loss.backward()
            self.G_optimizer.step()


def main():
    torch.manual_seed(0)
    gan = WGAN()
    data = torch.randn(16, 6)
    for it in range(4):
        gan.train_iter(data[it * 4:(it + 1) * 4], it)


if __name__ == "__main__":
    main()
