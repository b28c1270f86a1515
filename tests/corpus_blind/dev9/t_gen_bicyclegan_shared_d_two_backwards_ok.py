# corpus: BicycleGAN with use_same_D calls backward_D twice on the same discriminator, each on its own forward with detached fakes, so gradients simply accumulate before one optimizer_D.step() (correct)
# source: https://github.com/junyanz/BicycleGAN/issues/93
import torch
import torch.nn as nn


class BiCycleGANModel:
    def __init__(self, dim=12, nz=4, lr=2e-4, lambda_L1=10.0, lambda_kl=0.01):
        self.nz = nz
        self.netG = nn.Sequential(nn.Linear(dim + nz, 32), nn.ReLU(), nn.Linear(32, dim), nn.Tanh())
        self.netE = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 2 * nz))
        self.netD = nn.Sequential(nn.Linear(2 * dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.criterionGAN = nn.MSELoss()
        self.criterionL1 = nn.L1Loss()
        self.lambda_L1, self.lambda_kl = lambda_L1, lambda_kl
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optimizer_E = torch.optim.Adam(self.netE.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=lr, betas=(0.5, 0.999))

    def set_input(self, real_A, real_B):
        half = real_A.size(0) // 2
        self.real_A_encoded, self.real_B_encoded = real_A[:half], real_B[:half]
        self.real_A_random, self.real_B_random = real_A[half:], real_B[half:]

    def forward(self):
        mu, logvar = self.netE(self.real_B_encoded).chunk(2, dim=1)
        self.mu, self.logvar = mu, logvar
        self.z_encoded = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        self.z_random = torch.randn(self.real_A_random.size(0), self.nz)
        self.fake_B_encoded = self.netG(torch.cat([self.real_A_encoded, self.z_encoded], 1))
        self.fake_B_random = self.netG(torch.cat([self.real_A_random, self.z_random], 1))
        self.fake_data_encoded = torch.cat([self.real_A_encoded, self.fake_B_encoded], 1)
        self.real_data_encoded = torch.cat([self.real_A_encoded, self.real_B_encoded], 1)
        self.fake_data_random = torch.cat([self.real_A_random, self.fake_B_random], 1)
        self.real_data_random = torch.cat([self.real_A_random, self.real_B_random], 1)

    def backward_D(self, netD, real, fake):
        pred_fake = netD(fake.detach())
        pred_real = netD(real)
        loss_D_fake = self.criterionGAN(pred_fake, torch.zeros_like(pred_fake))
        loss_D_real = self.criterionGAN(pred_real, torch.ones_like(pred_real))
        loss_D = loss_D_fake + loss_D_real
        loss_D.backward()
        return loss_D

    def update_D(self):
        self.optimizer_D.zero_grad()
        self.loss_D = self.backward_D(self.netD, self.real_data_encoded, self.fake_data_encoded)
        self.loss_D2 = self.backward_D(self.netD, self.real_data_random, self.fake_data_random)
        self.optimizer_D.step()

    def update_G_and_E(self):
        self.optimizer_E.zero_grad()
        self.optimizer_G.zero_grad()
        pred_enc = self.netD(self.fake_data_encoded)
        pred_rand = self.netD(self.fake_data_random)
        loss_G_GAN = self.criterionGAN(pred_enc, torch.ones_like(pred_enc))
        loss_G_GAN2 = self.criterionGAN(pred_rand, torch.ones_like(pred_rand))
        loss_kl = torch.sum(1 + self.logvar - self.mu.pow(2) - self.logvar.exp()) * (-0.5 * self.lambda_kl)
        loss_G_L1 = self.criterionL1(self.fake_B_encoded, self.real_B_encoded) * self.lambda_L1
        loss_G = loss_G_GAN + loss_G_GAN2 + loss_kl + loss_G_L1
        loss_G.backward()
        self.optimizer_E.step()
        self.optimizer_G.step()
        return loss_G

    def optimize_parameters(self):
        self.forward()
        self.update_D()
        loss_G = self.update_G_and_E()
        return {"D": self.loss_D.item(), "D2": self.loss_D2.item(), "G": loss_G.item()}


def main():
    torch.manual_seed(0)
    model = BiCycleGANModel()
    for it in range(4):
        real_A, real_B = torch.rand(8, 12) * 2 - 1, torch.rand(8, 12) * 2 - 1
        model.set_input(real_A, real_B)
        print(it, model.optimize_parameters())


if __name__ == "__main__":
    main()
