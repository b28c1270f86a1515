# corpus: correct: a hand-written momentum optimizer keeps velocity state across step() calls and updates leaf tensors inside a @torch.no_grad() method; init via nn.init
# source: docs/rules/GG108.md (shape: 5)
import torch
import torch.nn as nn


class ManualMomentumSGD:
    def __init__(self, params, lr=0.05, momentum=0.9):
        self.params = list(params)
        self.lr = lr
        self.momentum = momentum
        self.velocity = {}

    @torch.no_grad()
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            v = self.velocity.get(i)
            if v is None:
                v = torch.zeros_like(p)
            v.mul_(self.momentum).add_(p.grad)
            self.velocity[i] = v
            p.sub_(self.lr * v)

    def zero_grad(self):
        for p in self.params:
            if p.grad is not None:
                p.grad.zero_()


def main():
    torch.manual_seed(0)
    layer = nn.Linear(3, 1)
    nn.init.zeros_(layer.bias)
    w_extra = torch.randn(3, 1, requires_grad=True)
    opt = ManualMomentumSGD(list(layer.parameters()) + [w_extra])
    x = torch.randn(16, 3)
    y = torch.randn(16, 1)
    for step in range(5):
        opt.zero_grad()
        loss = ((layer(x) + x @ w_extra - y) ** 2).mean()
        loss.backward()
        opt.step()
    return loss.item()


if __name__ == "__main__":
    main()
