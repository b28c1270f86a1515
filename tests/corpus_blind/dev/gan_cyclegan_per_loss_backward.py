# corpus: CycleGAN model whose backward_G backpropagates each generator loss of a dict separately; they all share fake_B/fake_A from forward()
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/Asthestarsfalll/Symbolic-Music-Genre-Transfer-with-CycleGAN-for-pytorch/issues/4
import itertools

import torch
import torch.nn as nn


def mlp(i, o):
    return nn.Sequential(nn.Linear(i, 16), nn.ReLU(), nn.Linear(16, o))


class CycleGANModel:
    def __init__(self, dim=10, lambda_A=10.0, lambda_B=10.0, lambda_idt=0.5):
        self.netG_A, self.netG_B = mlp(dim, dim), mlp(dim, dim)
        self.netD_A, self.netD_B = mlp(dim, 1), mlp(dim, 1)
        self.criterionGAN = nn.MSELoss()
        self.criterionCycle = nn.L1Loss()
        self.criterionIdt = nn.L1Loss()
        self.lambda_A, self.lambda_B, self.lambda_idt = lambda_A, lambda_B, lambda_idt
        self.optimizer_G = torch.optim.Adam(itertools.chain(self.netG_A.parameters(), self.netG_B.parameters()), lr=2e-4)
        self.optimizer_D = torch.optim.Adam(itertools.chain(self.netD_A.parameters(), self.netD_B.parameters()), lr=2e-4)
        self.losses = {}

    def set_input(self, batch):
        self.real_A, self.real_B = batch

    def gan_loss(self, pred, target_is_real):
        target = torch.ones_like(pred) if target_is_real else torch.zeros_like(pred)
        return self.criterionGAN(pred, target)

    def forward(self):
        self.fake_B = self.netG_A(self.real_A)  # also: GG102
        self.rec_A = self.netG_B(self.fake_B)
        self.fake_A = self.netG_B(self.real_B)
        self.rec_B = self.netG_A(self.fake_A)

    def set_requires_grad(self, nets, requires_grad):
        for net in nets:
            for p in net.parameters():
                p.requires_grad = requires_grad

    def backward_G(self):
        idt_A = self.netG_A(self.real_B)
        idt_B = self.netG_B(self.real_A)
        self.losses = {
            "idt_A": self.criterionIdt(idt_A, self.real_B) * self.lambda_B * self.lambda_idt,
            "idt_B": self.criterionIdt(idt_B, self.real_A) * self.lambda_A * self.lambda_idt,
            "G_A": self.gan_loss(self.netD_A(self.fake_B), True),
            "G_B": self.gan_loss(self.netD_B(self.fake_A), True),
            "cycle_A": self.criterionCycle(self.rec_A, self.real_A) * self.lambda_A,
            "cycle_B": self.criterionCycle(self.rec_B, self.real_B) * self.lambda_B,
        }
        for name, loss in self.losses.items():
            loss.backward()  # expect: GG102

    def backward_D_basic(self, netD, real, fake):
        loss_D = 0.5 * (self.gan_loss(netD(real), True) + self.gan_loss(netD(fake.detach()), False))
        loss_D.backward()
        return loss_D

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad([self.netD_A, self.netD_B], False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.set_requires_grad([self.netD_A, self.netD_B], True)
        self.optimizer_D.zero_grad()
        self.backward_D_basic(self.netD_A, self.real_B, self.fake_B)
        self.backward_D_basic(self.netD_B, self.real_A, self.fake_A)
        self.optimizer_D.step()


def main():
    torch.manual_seed(0)
    model = CycleGANModel()
    for _ in range(2):
        model.set_input((torch.randn(4, 10), torch.randn(4, 10)))
        model.optimize_parameters()


if __name__ == "__main__":
    main()
