# corpus: CycleGANModel (pytorch-CycleGAN-and-pix2pix shape: set_input/forward/backward_G/backward_D_A/backward_D_B/optimize_parameters, ImagePool, set_requires_grad): G_A and G_B are backpropagated once through their summed loss, then backward_D_basic is called separately for D_A and D_B, each on its own fresh discriminator forward of pooled, detached fakes; correct
# source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/1330
import itertools
import random

import torch
import torch.nn as nn


class ImagePool:
    def __init__(self, pool_size):
        self.pool_size, self.images = pool_size, []

    def query(self, images):
        out = []
        for image in images:
            image = image.detach().unsqueeze(0)
            if len(self.images) < self.pool_size:
                self.images.append(image)
                out.append(image)
            elif random.uniform(0, 1) > 0.5:
                idx = random.randint(0, self.pool_size - 1)
                out.append(self.images[idx].clone())
                self.images[idx] = image
            else:
                out.append(image)
        return torch.cat(out, 0)


class GANLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.MSELoss()

    def __call__(self, prediction, target_is_real):
        target = torch.ones_like(prediction) if target_is_real else torch.zeros_like(prediction)
        return self.loss(prediction, target)


def define_G():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.InstanceNorm2d(8), nn.ReLU(True), nn.Conv2d(8, 3, 3, padding=1), nn.Tanh())


def define_D():
    return nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2, True), nn.Conv2d(8, 1, 4, 1, 1))


class CycleGANModel:
    def __init__(self, lambda_A=10.0, lambda_B=10.0, lambda_identity=0.5):
        self.netG_A, self.netG_B = define_G(), define_G()
        self.netD_A, self.netD_B = define_D(), define_D()
        self.lambda_A, self.lambda_B, self.lambda_idt = lambda_A, lambda_B, lambda_identity
        self.fake_A_pool, self.fake_B_pool = ImagePool(4), ImagePool(4)
        self.criterionGAN, self.criterionCycle, self.criterionIdt = GANLoss(), nn.L1Loss(), nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(itertools.chain(self.netG_A.parameters(), self.netG_B.parameters()), lr=2e-4, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(itertools.chain(self.netD_A.parameters(), self.netD_B.parameters()), lr=2e-4, betas=(0.5, 0.999))

    @staticmethod
    def set_requires_grad(nets, requires_grad=False):
        for net in nets:
            for param in net.parameters():
                param.requires_grad = requires_grad

    def set_input(self, data):
        self.real_A, self.real_B = data["A"], data["B"]

    def forward(self):
        self.fake_B = self.netG_A(self.real_A)
        self.rec_A = self.netG_B(self.fake_B)
        self.fake_A = self.netG_B(self.real_B)
        self.rec_B = self.netG_A(self.fake_A)

    def backward_D_basic(self, netD, real, fake):
        loss_D_real = self.criterionGAN(netD(real), True)
        loss_D_fake = self.criterionGAN(netD(fake.detach()), False)
        loss_D = (loss_D_real + loss_D_fake) * 0.5
        loss_D.backward()
        return loss_D

    def backward_D_A(self):
        fake_B = self.fake_B_pool.query(self.fake_B)
        self.loss_D_A = self.backward_D_basic(self.netD_A, self.real_B, fake_B)

    def backward_D_B(self):
        fake_A = self.fake_A_pool.query(self.fake_A)
        self.loss_D_B = self.backward_D_basic(self.netD_B, self.real_A, fake_A)

    def backward_G(self):
        idt_A = self.netG_A(self.real_B)
        idt_B = self.netG_B(self.real_A)
        loss_idt = (self.criterionIdt(idt_A, self.real_B) * self.lambda_B
                    + self.criterionIdt(idt_B, self.real_A) * self.lambda_A) * self.lambda_idt
        self.loss_G_A = self.criterionGAN(self.netD_A(self.fake_B), True)
        self.loss_G_B = self.criterionGAN(self.netD_B(self.fake_A), True)
        loss_cycle = (self.criterionCycle(self.rec_A, self.real_A) * self.lambda_A
                      + self.criterionCycle(self.rec_B, self.real_B) * self.lambda_B)
        self.loss_G = self.loss_G_A + self.loss_G_B + loss_cycle + loss_idt
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad([self.netD_A, self.netD_B], False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.set_requires_grad([self.netD_A, self.netD_B], True)
        self.optimizer_D.zero_grad()
        self.backward_D_A()
        self.backward_D_B()
        self.optimizer_D.step()

    def get_current_losses(self):
        return {k: getattr(self, "loss_" + k).item() for k in ("D_A", "G_A", "D_B", "G_B", "G")}


def main():
    random.seed(0)
    torch.manual_seed(0)
    model = CycleGANModel()
    for it in range(3):
        model.set_input({"A": torch.rand(2, 3, 16, 16) * 2 - 1, "B": torch.rand(2, 3, 16, 16) * 2 - 1})
        model.optimize_parameters()
        print(it, {k: round(v, 4) for k, v in model.get_current_losses().items()})


if __name__ == "__main__":
    main()
