# corpus: pix2pix model: backward_G backpropagates the GAN term with retain_graph=True and then the L1 term over the same fake_B, with one optimizer_G.step() after both
# source: https://cnblogs.com/lfri/p/15556172.html
import torch
import torch.nn as nn


class UnetLike(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.down = nn.Sequential(nn.Linear(dim, 16), nn.LeakyReLU(0.2))
        self.up = nn.Sequential(nn.Linear(16 + dim, dim), nn.Tanh())

    def forward(self, x):
        return self.up(torch.cat([self.down(x), x], dim=1))


class Pix2PixModel:
    def __init__(self, dim=8, lambda_L1=100.0):
        self.netG = UnetLike(dim)
        self.netD = nn.Sequential(nn.Linear(2 * dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.criterionGAN = nn.BCEWithLogitsLoss()
        self.criterionL1 = nn.L1Loss()
        self.lambda_L1 = lambda_L1
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4, betas=(0.5, 0.999))

    def set_input(self, real_A, real_B):
        self.real_A, self.real_B = real_A, real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    @staticmethod
    def set_requires_grad(net, flag):
        for p in net.parameters():
            p.requires_grad = flag

    def backward_D(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB.detach())
        self.loss_D_fake = self.criterionGAN(pred_fake, torch.zeros_like(pred_fake))
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D_real = self.criterionGAN(pred_real, torch.ones_like(pred_real))
        self.loss_D = (self.loss_D_fake + self.loss_D_real) * 0.5
        self.loss_D.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB)
        self.loss_G_GAN = self.criterionGAN(pred_fake, torch.ones_like(pred_fake))
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.lambda_L1
        # two terms, one graph: keep it alive for the second backward, step once afterwards
        self.loss_G_GAN.backward(retain_graph=True)
        self.loss_G_L1.backward()

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad(self.netD, True)
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Pix2PixModel()
    for _ in range(3):
        model.set_input(torch.randn(4, 8), torch.rand(4, 8) * 2 - 1)
        model.optimize_parameters()
    assert all(p.grad is not None for p in model.netG.parameters())
    assert all(p.grad is not None for p in model.netD.parameters())
    # the G gradient equals that of the summed loss on a fresh forward
    model.forward()
    model.optimizer_G.zero_grad()
    model.backward_G()
    split = [p.grad.clone() for p in model.netG.parameters()]
    joint = torch.autograd.grad(model.criterionGAN(model.netD(torch.cat((model.real_A, model.netG(model.real_A)), 1)),
                                                   torch.ones(4, 1)) +
                                model.criterionL1(model.netG(model.real_A), model.real_B) * model.lambda_L1,
                                list(model.netG.parameters()))
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(split, joint))
