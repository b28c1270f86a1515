# corpus: a pix2pix-style model whose GANLoss picks MSE or BCE by mode and whose D step feeds torch.cat((real_A, fake_B)) to netD without detaching fake_B; the G step's backward then runs into the freed generator graph
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn


class GANLoss(nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.loss = nn.MSELoss() if mode == "lsgan" else nn.BCEWithLogitsLoss()

    def __call__(self, prediction, is_real):
        target = torch.ones_like(prediction) if is_real else torch.zeros_like(prediction)
        return self.loss(prediction, target)


class Pix2Pix:
    def __init__(self, mode):
        self.netG = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))
        self.netD = nn.Sequential(nn.Conv2d(6, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 3))
        self.criterion = GANLoss(mode)
        self.l1 = nn.L1Loss()
        self.opt_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)
        self.opt_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)

    def optimize(self, real_A, real_B):
        fake_B = self.netG(real_A)
        self.opt_D.zero_grad()
        loss_D_fake = self.criterion(self.netD(torch.cat((real_A, fake_B), 1)), False)  # expect: GG105
        loss_D_real = self.criterion(self.netD(torch.cat((real_A, real_B), 1)), True)
        ((loss_D_fake + loss_D_real) * 0.5).backward()
        self.opt_D.step()
        self.opt_G.zero_grad()
        loss_G = self.criterion(self.netD(torch.cat((real_A, fake_B), 1)), True) + 100 * self.l1(fake_B, real_B)
        loss_G.backward()
        self.opt_G.step()


torch.manual_seed(0)
model = Pix2Pix("lsgan")
model.optimize(torch.randn(2, 3, 8, 8), torch.randn(2, 3, 8, 8))
