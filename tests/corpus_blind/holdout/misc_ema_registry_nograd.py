# corpus: online and momentum networks live in a module-level registry dict; the momentum copy is frozen and updated in place (params and buffers) inside a no_grad updater (correct)
# source: https://github.com/saltoricristiano/cosmix-uda/issues/21
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

MODELS = {}


def build_models():
    online = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 4))
    momentum = copy.deepcopy(online)
    for p in momentum.parameters():
        p.requires_grad_(False)
    MODELS["online"] = online
    MODELS["momentum"] = momentum


class MomentumUpdater:
    def __init__(self, base_tau=0.99):
        self.cur_tau = base_tau

    @torch.no_grad()
    def update(self, online_net, momentum_net):
        for op, mp in zip(online_net.parameters(), momentum_net.parameters()):
            mp.mul_(self.cur_tau).add_(op * (1 - self.cur_tau))
        for ob, mb in zip(online_net.buffers(), momentum_net.buffers()):
            if ob.is_floating_point():
                mb.mul_(self.cur_tau).add_(ob * (1 - self.cur_tau))
            else:
                mb.copy_(ob)


def train_step(optimizer, updater, x_src, y_src, x_tgt):
    online, momentum = MODELS["online"], MODELS["momentum"]
    online.train()
    momentum.train()
    with torch.no_grad():
        pseudo = momentum(x_tgt).softmax(dim=1)
    loss = F.cross_entropy(online(x_src), y_src) + F.mse_loss(online(x_tgt).softmax(dim=1), pseudo)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    updater.update(online, momentum)
    return loss.item()


def main():
    build_models()
    optimizer = torch.optim.SGD(MODELS["online"].parameters(), lr=0.1)
    updater = MomentumUpdater()
    before = [p.clone() for p in MODELS["momentum"].parameters()]
    for _ in range(3):
        train_step(optimizer, updater, torch.randn(8, 6), torch.randint(0, 4, (8,)), torch.randn(8, 6))
    assert all(p.grad is not None for p in MODELS["online"].parameters())
    assert all(p.grad is None for p in MODELS["momentum"].parameters())
    assert any(not torch.equal(b, p) for b, p in zip(before, MODELS["momentum"].parameters()))


if __name__ == "__main__":
    main()
