# corpus: R3GAN-style relativistic GAN trainer with R1/R2 zero-centred gradient penalties: real and fake samples are detached and re-marked requires_grad, the penalty gradient is taken with create_graph=True and the total discriminator loss is backpropagated once; generator and discriminator phases toggle requires_grad; correct
# source: https://github.com/brownvc/R3GAN/issues/20
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class LoopConfig:
    noise_dim: int = 8
    batch_size: int = 4
    gamma: float = 1.0
    lr: float = 2e-4
    steps: int = 3


class Generator(nn.Module):
    def __init__(self, noise_dim, resolution=8):
        super().__init__()
        self.resolution = resolution
        self.net = nn.Sequential(nn.Linear(noise_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 3 * resolution * resolution))

    def forward(self, z, c=None):
        return self.net(z).view(-1, 3, self.resolution, self.resolution)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 4 * 4, 1))

    def forward(self, x, c=None):
        return self.net(x).squeeze(1)


class AdversarialTraining:
    def __init__(self, Generator, Discriminator):
        self.Generator = Generator
        self.Discriminator = Discriminator

    @staticmethod
    def ZeroCenteredGradientPenalty(Samples, Critics):
        Gradient, = torch.autograd.grad(outputs=Critics.sum(), inputs=Samples, create_graph=True)
        return Gradient.square().sum([1, 2, 3])

    def AccumulateGeneratorGradients(self, Noise, RealSamples, Conditions, Scale=1, Preprocessor=lambda x: x):
        FakeSamples = self.Generator(Noise, Conditions)
        RealSamples = RealSamples.detach()

        FakeLogits = self.Discriminator(Preprocessor(FakeSamples), Conditions)
        RealLogits = self.Discriminator(Preprocessor(RealSamples), Conditions)

        RelativisticLogits = FakeLogits - RealLogits
        AdversarialLoss = nn.functional.softplus(-RelativisticLogits)

        (Scale * AdversarialLoss.mean()).backward()

        return [x.detach() for x in [AdversarialLoss, RelativisticLogits]]

    def AccumulateDiscriminatorGradients(self, Noise, RealSamples, Conditions, Gamma, Scale=1, Preprocessor=lambda x: x):
        RealSamples = RealSamples.detach().requires_grad_(True)
        FakeSamples = self.Generator(Noise, Conditions).detach().requires_grad_(True)

        RealLogits = self.Discriminator(Preprocessor(RealSamples), Conditions)
        FakeLogits = self.Discriminator(Preprocessor(FakeSamples), Conditions)

        R1Penalty = AdversarialTraining.ZeroCenteredGradientPenalty(RealSamples, RealLogits)
        R2Penalty = AdversarialTraining.ZeroCenteredGradientPenalty(FakeSamples, FakeLogits)

        RelativisticLogits = RealLogits - FakeLogits
        AdversarialLoss = nn.functional.softplus(-RelativisticLogits)

        DiscriminatorLoss = AdversarialLoss + (Gamma / 2) * (R1Penalty + R2Penalty)
        (Scale * DiscriminatorLoss.mean()).backward()

        return [x.detach() for x in [AdversarialLoss, RelativisticLogits, R1Penalty, R2Penalty]]


def training_loop(cfg: LoopConfig):
    G = Generator(cfg.noise_dim)
    D = Discriminator()
    trainer = AdversarialTraining(G, D)
    opt_G = torch.optim.Adam(G.parameters(), lr=cfg.lr, betas=(0.0, 0.99))
    opt_D = torch.optim.Adam(D.parameters(), lr=cfg.lr, betas=(0.0, 0.99))
    stats = []
    for step in range(cfg.steps):
        real = torch.randn(cfg.batch_size, 3, 8, 8)

        # Discriminator phase
        G.requires_grad_(False)
        D.requires_grad_(True)
        opt_D.zero_grad(set_to_none=True)
        z = torch.randn(cfg.batch_size, cfg.noise_dim)
        adv_d, rel_d, r1, r2 = trainer.AccumulateDiscriminatorGradients(z, real, None, cfg.gamma)
        opt_D.step()

        # Generator phase
        G.requires_grad_(True)
        D.requires_grad_(False)
        opt_G.zero_grad(set_to_none=True)
        z = torch.randn(cfg.batch_size, cfg.noise_dim)
        adv_g, rel_g = trainer.AccumulateGeneratorGradients(z, real, None)
        opt_G.step()

        stats.append({"D/adv": adv_d.mean().item(), "D/r1": r1.mean().item(), "D/r2": r2.mean().item(),
                      "G/adv": adv_g.mean().item()})
        print(step, {k: round(v, 4) for k, v in stats[-1].items()})
    return stats


def main():
    torch.manual_seed(0)
    training_loop(LoopConfig())


if __name__ == "__main__":
    main()
