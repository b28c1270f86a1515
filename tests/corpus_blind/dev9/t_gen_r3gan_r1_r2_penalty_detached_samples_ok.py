# corpus: R3GAN-style trainer detaches real and fake samples and re-flags them requires_grad_ for the R1/R2 penalties, computed with create_graph=True; the penalty trains D and G gets its own fresh forward (correct)
# source: https://github.com/brownvc/R3GAN/issues/12
import torch
import torch.nn as nn
import torch.nn.functional as F


class AdversarialTraining:
    def __init__(self, Generator, Discriminator):
        self.Generator = Generator
        self.Discriminator = Discriminator

    @staticmethod
    def ZeroCenteredGradientPenalty(Samples, Critics):
        Gradient, = torch.autograd.grad(outputs=Critics.sum(), inputs=Samples, create_graph=True)
        return Gradient.square().sum(dim=1)

    def AccumulateGeneratorGradients(self, Noise, RealSamples, Scale=1):
        FakeSamples = self.Generator(Noise)
        RealSamples = RealSamples.detach()
        FakeLogits = self.Discriminator(FakeSamples)
        RealLogits = self.Discriminator(RealSamples)
        RelativisticLogits = FakeLogits - RealLogits
        AdversarialLoss = F.softplus(-RelativisticLogits)
        (Scale * AdversarialLoss.mean()).backward()
        return AdversarialLoss.detach()

    def AccumulateDiscriminatorGradients(self, Noise, RealSamples, Gamma, Scale=1):
        RealSamples = RealSamples.detach().requires_grad_(True)
        FakeSamples = self.Generator(Noise).detach().requires_grad_(True)
        RealLogits = self.Discriminator(RealSamples)
        FakeLogits = self.Discriminator(FakeSamples)
        R1Penalty = self.ZeroCenteredGradientPenalty(RealSamples, RealLogits)
        R2Penalty = self.ZeroCenteredGradientPenalty(FakeSamples, FakeLogits)
        RelativisticLogits = RealLogits - FakeLogits
        AdversarialLoss = F.softplus(-RelativisticLogits).squeeze(1)
        DiscriminatorLoss = AdversarialLoss + (Gamma / 2) * (R1Penalty + R2Penalty)
        (Scale * DiscriminatorLoss.mean()).backward()
        return AdversarialLoss.detach(), R1Penalty.detach(), R2Penalty.detach()


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 32), nn.LeakyReLU(0.2), nn.Linear(32, 6))
    D = nn.Sequential(nn.Linear(6, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.99))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.99))
    trainer = AdversarialTraining(G, D)
    for step in range(4):
        real = torch.randn(16, 6) * 0.3 + 1.0
        opt_d.zero_grad()
        adv_d, r1, r2 = trainer.AccumulateDiscriminatorGradients(torch.randn(16, 4), real, Gamma=10.0)
        opt_d.step()
        opt_g.zero_grad()
        adv_g = trainer.AccumulateGeneratorGradients(torch.randn(16, 4), real)
        opt_g.step()
        print(step, adv_d.mean().item(), r1.mean().item(), r2.mean().item(), adv_g.mean().item())


if __name__ == "__main__":
    main()
