# corpus: BaseGAN.optimizeParameters backpropagates the adversarial G loss, then the GDPP loss built from the same D features of the fake batch
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83
import torch
import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self, dim_in, dim_feat=12):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(dim_in, dim_feat), nn.LeakyReLU(0.2))
        self.decision = nn.Linear(dim_feat, 1)

    def forward(self, x, getFeature=False):
        feat = self.features(x)
        out = self.decision(feat)
        if getFeature:
            return out, feat
        return out


def GDPPLoss(phiFake, phiReal):
    def compute_diversity(phi):
        phi = nn.functional.normalize(phi, p=2, dim=1)
        S = phi @ phi.t()
        eig_vals, eig_vecs = torch.linalg.eigh(S)
        return eig_vals, eig_vecs

    fake_eig_vals, _ = compute_diversity(phiFake)
    real_eig_vals, _ = compute_diversity(phiReal)
    return nn.functional.mse_loss(fake_eig_vals, real_eig_vals)


class WGANGPLoss:
    def getCriterion(self, pred, status):
        return -pred.mean() if status else pred.mean()


class BaseGAN:
    def __init__(self, dimLatent=6, dimOut=10, GDPP=True):
        self.config = {"GDPP": GDPP, "dimLatent": dimLatent}
        self.netG = nn.Sequential(nn.Linear(dimLatent, 16), nn.ReLU(), nn.Linear(16, dimOut))
        self.netD = Discriminator(dimOut)
        self.optimizerG = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optimizerD = torch.optim.Adam(self.netD.parameters(), lr=1e-3)
        self.lossCriterion = WGANGPLoss()

    def buildNoiseData(self, n):
        return torch.randn(n, self.config["dimLatent"])

    def optimizeParameters(self, input_batch):
        allLosses = {}
        self.real_input = input_batch
        n = input_batch.size(0)

        # Update the discriminator
        self.optimizerD.zero_grad()
        predRealD = self.netD(self.real_input)
        lossD = self.lossCriterion.getCriterion(predRealD, True)
        inputLatent = self.buildNoiseData(n)
        predFakeG = self.netG(inputLatent).detach()
        predFakeD = self.netD(predFakeG)
        lossD = lossD + self.lossCriterion.getCriterion(predFakeD, False)
        allLosses["lossD"] = lossD.item()
        lossD.backward()
        self.optimizerD.step()

        # Update the generator
        self.optimizerG.zero_grad()
        self.optimizerD.zero_grad()
        inputNoise = self.buildNoiseData(n)
        predFakeG = self.netG(inputNoise)
        predFakeD, phiGFake = self.netD(predFakeG, True)  # also: GG102
        lossGFake = self.lossCriterion.getCriterion(predFakeD, True)
        lossGFake.backward()  # expect: GG102
        allLosses["lossG_fake"] = lossGFake.item()

        if self.config["GDPP"]:
            _, phiDReal = self.netD(self.real_input, True)
            lossGDPP = GDPPLoss(phiGFake, phiDReal.detach())
            lossGDPP.backward()  # also: GG102
            allLosses["lossG_GDPP"] = lossGDPP.item()

        self.optimizerG.step()
        return allLosses


def main():
    torch.manual_seed(0)
    gan = BaseGAN()
    for step in range(3):
        print(step, gan.optimizeParameters(torch.randn(6, 10)))


if __name__ == "__main__":
    main()
