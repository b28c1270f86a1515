# corpus: discriminator trained with a SAM wrapper; the second SAM pass recomputes the loss but drops the result and re-backpropagates the first loss after first_step moved the weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/kozistr/pytorch_optimizer/issues/64
import torch
import torch.nn as nn
import torch.nn.functional as F


class SAMWrapper:
    """Two-step sharpness-aware update around any torch optimizer."""

    def __init__(self, params, base_cls, rho=0.05, **base_kwargs):
        self.params = [p for p in params if p.requires_grad]
        self.base = base_cls(self.params, **base_kwargs)
        self.rho = rho
        self.e_ws = {}

    def zero_grad(self):
        self.base.zero_grad(set_to_none=True)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grads = [p.grad for p in self.params if p.grad is not None]
        norm = torch.norm(torch.stack([g.norm(2) for g in grads]), 2)
        for p in self.params:
            if p.grad is None:
                continue
            e_w = p.grad * (self.rho / (norm + 1e-12))
            p.add_(e_w)
            self.e_ws[p] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for p, e_w in self.e_ws.items():
            p.sub_(e_w)
        self.base.step()
        if zero_grad:
            self.zero_grad()


def discriminator_loss(netD, real, fake):
    return F.softplus(-netD(real)).mean() + F.softplus(netD(fake)).mean()


def train(models, optimizers, steps=3):
    netG, netD = models["G"], models["D"]
    for _ in range(steps):
        real = torch.randn(6, 10) + 1.0
        with torch.no_grad():
            fake = netG(torch.randn(6, 4))

        # ----------------- SAM optimizer for D -----------------
        loss = discriminator_loss(netD, real, fake)
        loss.backward(retain_graph=True)  # also: GG111
        optimizers["D"].first_step(zero_grad=True)  # expect: GG111

        discriminator_loss(netD, real, fake)  # also: GG111
        loss.backward(retain_graph=True)  # also: GG111
        optimizers["D"].second_step(zero_grad=True)

        optimizers["G"].zero_grad()
        g_loss = F.softplus(-netD(netG(torch.randn(6, 4)))).mean()
        g_loss.backward()
        optimizers["G"].step()


if __name__ == "__main__":
    torch.manual_seed(0)
    models = {
        "G": nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 10)),
        "D": nn.Sequential(nn.Linear(10, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)),
    }
    optimizers = {
        "D": SAMWrapper(models["D"].parameters(), torch.optim.SGD, rho=0.05, lr=0.05, momentum=0.9),
        "G": torch.optim.Adam(models["G"].parameters(), lr=1e-3),
    }
    train(models, optimizers)
