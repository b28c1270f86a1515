# corpus: GAN generator trained with SAM.step(closure): the closure re-runs the forward and backward at the perturbed weights instead of reusing the first loss
# source: https://github.com/davda54/sam/issues/8
import torch
import torch.nn as nn
import torch.nn.functional as F


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = torch.norm(torch.stack([p.grad.norm(2) for g in self.param_groups
                                            for p in g["params"] if p.grad is not None]), 2)
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    def step(self, closure=None):
        assert closure is not None, "Sharpness Aware Minimization requires closure, but it was not provided"
        closure = torch.enable_grad()(closure)
        self.first_step(zero_grad=True)
        closure()
        self.second_step()


class GANTrainer:
    def __init__(self):
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.opt_G = SAM(self.G.parameters(), torch.optim.SGD, rho=0.05, lr=0.05, momentum=0.9)
        self.opt_D = torch.optim.Adam(self.D.parameters(), lr=1e-3)
        self.log = []

    def g_loss(self, z):
        return F.softplus(-self.D(self.G(z))).mean()

    def train_step(self, real):
        z = torch.randn(real.size(0), 4)
        self.opt_D.zero_grad()
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(self.G(z).detach())).mean()
        d_loss.backward()
        self.opt_D.step()

        for p in self.D.parameters():
            p.requires_grad_(False)

        def closure():
            self.opt_G.zero_grad()
            loss = self.g_loss(z)
            loss.backward()
            return loss

        loss = self.g_loss(z)
        loss.backward()
        self.opt_G.step(closure)
        self.opt_G.zero_grad()
        for p in self.D.parameters():
            p.requires_grad_(True)
        self.log.append((d_loss.item(), loss.item()))


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = GANTrainer()
    before = [p.detach().clone() for p in trainer.G.parameters()]
    for _ in range(3):
        trainer.train_step(torch.randn(6, 8) + 1.0)
    assert all(not torch.equal(b, p) for b, p in zip(before, trainer.G.parameters()))
    assert all(p.grad is not None for p in trainer.D.parameters())
    assert all(isinstance(a, float) and isinstance(b, float) for a, b in trainer.log)
