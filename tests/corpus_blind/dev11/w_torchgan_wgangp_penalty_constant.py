# corpus: torchgan-style WGAN-GP trainer adds a gradient penalty computed by autograd.grad without create_graph to the critic loss; the penalty is a constant and never regularises the critic
# source: https://github.com/torchgan/torchgan/issues/21
import torch
import torch.autograd as autograd
import torch.nn as nn


def reduce(x, reduction="elementwise_mean"):
    return x.mean() if reduction == "elementwise_mean" else x.sum()


def wasserstein_gradient_penalty(interpolate, d_interpolate, reduction="elementwise_mean"):
    grad_outputs = torch.ones_like(d_interpolate)
    gradients = autograd.grad(outputs=d_interpolate, inputs=interpolate, grad_outputs=grad_outputs,  # expect: GG202
                              only_inputs=True)[0]
    gradient_penalty = (gradients.norm(2, dim=1) - 1) ** 2  # also: GG202
    return reduce(gradient_penalty, reduction)


class WassersteinGeneratorLoss(nn.Module):
    def train_ops(self, generator, discriminator, optimizer_generator, real_inputs):
        noise = torch.randn(real_inputs.size(0), generator.encoding_dims)
        optimizer_generator.zero_grad()
        loss = -reduce(discriminator(generator(noise)))
        loss.backward()
        optimizer_generator.step()
        return loss.item()


class WassersteinDiscriminatorGPLoss(nn.Module):
    def __init__(self, lambd=10.0):
        super().__init__()
        self.lambd = lambd

    def train_ops(self, generator, discriminator, optimizer_discriminator, real_inputs):
        noise = torch.randn(real_inputs.size(0), generator.encoding_dims)
        optimizer_discriminator.zero_grad()
        fake = generator(noise).detach()
        eps = torch.rand(real_inputs.size(0), 1)
        interpolate = (eps * real_inputs + (1 - eps) * fake).requires_grad_(True)
        penalty = wasserstein_gradient_penalty(interpolate, discriminator(interpolate))
        loss = reduce(discriminator(fake)) - reduce(discriminator(real_inputs)) + self.lambd * penalty  # also: GG202
        loss.backward()
        optimizer_discriminator.step()
        return loss.item(), penalty.item()


class Generator(nn.Module):
    def __init__(self, encoding_dims=4, out=2):
        super().__init__()
        self.encoding_dims = encoding_dims
        self.model = nn.Sequential(nn.Linear(encoding_dims, 16), nn.ReLU(), nn.Linear(16, out))

    def forward(self, z):
        return self.model(z)


class Critic(nn.Module):
    def __init__(self, inp=2):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(inp, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x):
        return self.model(x)


class Trainer:
    def __init__(self, ncritic=2):
        self.generator, self.discriminator = Generator(), Critic()
        self.optimizer_generator = torch.optim.Adam(self.generator.parameters(), lr=1e-3, betas=(0.5, 0.9))
        self.optimizer_discriminator = torch.optim.Adam(self.discriminator.parameters(), lr=1e-3, betas=(0.5, 0.9))
        self.g_loss, self.d_loss = WassersteinGeneratorLoss(), WassersteinDiscriminatorGPLoss()
        self.ncritic = ncritic
        self.logs = {"d_loss": [], "gp": [], "g_loss": []}

    def train_iter(self, real_inputs):
        for _ in range(self.ncritic):
            d, gp = self.d_loss.train_ops(self.generator, self.discriminator, self.optimizer_discriminator, real_inputs)
            self.logs["d_loss"].append(d)
            self.logs["gp"].append(gp)
        g = self.g_loss.train_ops(self.generator, self.discriminator, self.optimizer_generator, real_inputs)
        self.logs["g_loss"].append(g)

    def train(self, epochs=3, batch_size=8):
        for epoch in range(epochs):
            real = torch.randn(batch_size, 2) * 0.3 + torch.tensor([1.0, -1.0])
            self.train_iter(real)
        return self.logs


if __name__ == "__main__":
    torch.manual_seed(0)
    logs = Trainer().train()
    print({k: [round(v, 3) for v in vals] for k, vals in logs.items()})
