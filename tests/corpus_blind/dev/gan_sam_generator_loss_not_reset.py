# corpus: pix2pix generator trained with a SAM optimizer; the second (sharpness-aware) pass keeps adding to the first pass's `loss` instead of starting from zero
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/davda54/sam/issues/10
import torch
import torch.nn as nn
import torch.nn.functional as F


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        defaults = dict(rho=rho, **kwargs)
        super().__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                p.add_(p.grad * scale)
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    def _grad_norm(self):
        norms = [p.grad.norm(p=2) for g in self.param_groups for p in g["params"] if p.grad is not None]
        return torch.norm(torch.stack(norms), p=2)


def get_loss(output, target, netD, t):
    if t == "l1":
        return 100.0 * F.l1_loss(output, target)
    pred = netD(output)
    return F.binary_cross_entropy_with_logits(pred, torch.ones_like(pred))


def main():
    torch.manual_seed(0)
    netG = nn.Sequential(nn.Linear(8, 24), nn.ReLU(), nn.Linear(24, 8), nn.Tanh())
    netD = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    for p in netD.parameters():
        p.requires_grad_(False)
    optimizer = SAM(netG.parameters(), torch.optim.SGD, rho=0.05, lr=0.01, momentum=0.9)
    tasks = ["gan", "l1"]
    loss_sum = {t: 0.0 for t in tasks}
    for step in range(3):
        image, target = torch.randn(4, 8), torch.rand(4, 8) * 2 - 1

        output = netG(image)
        loss = 0
        for t in tasks:
            loss_t = get_loss(output, target, netD, t)
            loss += loss_t
            loss_sum[t] += loss_t.item()
        optimizer.zero_grad()
        loss.backward()  # also: GG101
        optimizer.first_step(zero_grad=True)

        output = netG(image)
        for t in tasks:
            loss_t = get_loss(output, target, netD, t)
            loss += loss_t  # expect: GG101
            loss_sum[t] += loss_t.item()
        loss.backward()  # also: GG101
        optimizer.second_step(zero_grad=True)
    print(loss_sum)


if __name__ == "__main__":
    main()
