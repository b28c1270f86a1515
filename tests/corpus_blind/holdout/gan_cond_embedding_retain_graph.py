# corpus: conditional GAN caches the label embedding once in setup(); g_loss.backward(retain_graph=True) was added so every step can backprop through it again
# source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/9
import torch
import torch.nn as nn
import torch.nn.functional as F


class CondGenerator(nn.Module):
    def __init__(self, z_dim, c_dim, out_dim):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(z_dim + c_dim, 24), nn.ReLU(), nn.Linear(24, out_dim))

    def forward(self, z, c):
        return self.fc(torch.cat([z, c], dim=1))


class CondDiscriminator(nn.Module):
    def __init__(self, x_dim, c_dim):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(x_dim + c_dim, 24), nn.LeakyReLU(0.2), nn.Linear(24, 1))

    def forward(self, x, c):
        return self.fc(torch.cat([x, c], dim=1))


class ControlledGAN:
    def __init__(self, n_classes=3, z_dim=6, c_dim=4, x_dim=10, batch=6):
        self.z_dim, self.batch = z_dim, batch
        self.label_embed = nn.Embedding(n_classes, c_dim)
        self.G = CondGenerator(z_dim, c_dim, x_dim)
        self.D = CondDiscriminator(x_dim, c_dim)
        self.opt_G = torch.optim.Adam(list(self.G.parameters()) + list(self.label_embed.parameters()), lr=1e-2)
        self.opt_D = torch.optim.Adam(self.D.parameters(), lr=1e-3)
        self.fixed_labels = torch.arange(batch) % n_classes

    def setup(self):
        self.cond = self.label_embed(self.fixed_labels)  # also: GG302

    def step(self, real):
        z = torch.randn(self.batch, self.z_dim)
        fake = self.G(z, self.cond)

        self.opt_D.zero_grad()
        d_loss = F.softplus(-self.D(real, self.cond.detach())).mean() + \
            F.softplus(self.D(fake.detach(), self.cond.detach())).mean()
        d_loss.backward()
        self.opt_D.step()

        self.opt_G.zero_grad()
        g_loss = F.softplus(-self.D(fake, self.cond)).mean()
        g_loss.backward(retain_graph=True)  # expect: GG302
        self.opt_G.step()
        return d_loss.item(), g_loss.item()


def main():
    torch.manual_seed(0)
    gan = ControlledGAN()
    gan.setup()
    for _ in range(5):
        gan.step(torch.randn(6, 10))
    return gan


if __name__ == "__main__":
    gan = main()
    # ground truth: the cached embedding still carries the graph that every iteration backpropagated through
    assert gan.cond.grad_fn is not None
    # ground truth: and it is stale: the embedding table moved, the cached conditioning did not
    assert not torch.allclose(gan.cond, gan.label_embed(gan.fixed_labels))
