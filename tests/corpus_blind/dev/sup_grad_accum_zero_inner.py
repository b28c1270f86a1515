# corpus: train loop with grad_accum_steps calls optimizer.zero_grad() for every micro-batch, so each step only uses the last micro-batch
# source: https://github.com/bytetriper/RAE/issues/67
import copy
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainConfig:
    lr: float = 0.1
    grad_accum_steps: int = 4
    clip_grad: float = 1e3
    ema_decay: float = 0.999


class Decoder(nn.Module):
    def __init__(self, latent=8, out=12):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 24), nn.SiLU(), nn.Linear(24, out))

    def forward(self, z):
        return self.net(z)


class RAETrainer:
    def __init__(self, model, cfg):
        self.model = model
        self.ema = copy.deepcopy(model).requires_grad_(False)
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
        self.global_step = 0

    @torch.no_grad()
    def update_ema(self):
        for p_ema, p in zip(self.ema.parameters(), self.model.parameters()):
            p_ema.mul_(self.cfg.ema_decay).add_(p, alpha=1 - self.cfg.ema_decay)

    def train_epoch(self, loader):
        self.model.train()
        for step, (z, x) in enumerate(loader):
            self.optimizer.zero_grad(set_to_none=True)  # also: GG201
            recon = self.model(z)
            loss = F.mse_loss(recon, x) / self.cfg.grad_accum_steps
            loss.backward()  # expect: GG201
            if (step + 1) % self.cfg.grad_accum_steps == 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip_grad)
                self.optimizer.step()
                self.update_ema()
                self.global_step += 1


def make_loader(n):
    return [(torch.randn(5, 8), torch.randn(5, 12)) for _ in range(n)]


def main():
    torch.manual_seed(0)
    cfg = TrainConfig()
    trainer = RAETrainer(Decoder(), cfg)
    trainer.train_epoch(make_loader(8))
    return trainer, cfg


if __name__ == "__main__":
    trainer, cfg = main()
    # ground truth: one accumulation window moves the weights by only the last micro-batch's gradient
    window = make_loader(cfg.grad_accum_steps)
    before = copy.deepcopy(trainer.model)
    trainer.train_epoch(window)
    w0 = before.net[0].weight
    grads = [torch.autograd.grad(F.mse_loss(before(z), x) / cfg.grad_accum_steps, w0)[0] for z, x in window]
    applied = (w0 - trainer.model.net[0].weight) / cfg.lr
    assert torch.allclose(applied, grads[-1], atol=1e-5)
    assert not torch.allclose(applied, sum(grads), atol=1e-3)
