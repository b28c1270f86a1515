# corpus: diffusion tracker's actor returns a status dict of weighted loss tensors (no .item()); the trainer's meters sum them over the epoch, so every step's graph stays alive
# source: https://github.com/VISION-SJTU/DiffusionTrack/issues/2
import math
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Denoiser(nn.Module):
    def __init__(self, dim=8, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x_t, t):
        return self.net(torch.cat([x_t, t.float().unsqueeze(1) / 100.0], dim=1))


class DiffusionActor:
    def __init__(self, net, timesteps=100):
        self.net = net
        self.timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.weight_dict = {"loss_noise": 1.0, "loss_x0": 0.5}

    def q_sample(self, x0, t, noise):
        a = self.alphas_cumprod[t].unsqueeze(1)
        return a.sqrt() * x0 + (1 - a).sqrt() * noise

    def __call__(self, boxes):
        t = torch.randint(0, self.timesteps, (boxes.size(0),))
        noise = torch.randn_like(boxes)
        x_t = self.q_sample(boxes, t, noise)
        pred_noise = self.net(x_t, t)
        a = self.alphas_cumprod[t].unsqueeze(1)
        pred_x0 = (x_t - (1 - a).sqrt() * pred_noise) / a.sqrt()
        loss_dict = {"loss_noise": F.mse_loss(pred_noise, noise), "loss_x0": F.l1_loss(pred_x0, boxes)}
        return self.compute_losses(loss_dict)

    def compute_losses(self, loss_dict):
        new_loss_dict = {k: v * self.weight_dict[k] for k, v in loss_dict.items() if k in self.weight_dict}
        losses = sum(new_loss_dict.values())
        status = {"Loss/total": losses}
        status.update(new_loss_dict)
        return losses, status


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n  # expect: GG301
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class LTRTrainer:
    def __init__(self, actor, optimizer):
        self.actor = actor
        self.optimizer = optimizer
        self.stats = defaultdict(AverageMeter)

    def cycle_dataset(self, loader):
        for boxes in loader:
            loss, stats = self.actor(boxes)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            for name, val in stats.items():
                self.stats[name].update(val, boxes.size(0))
        return {k: f"{m.avg:.4f}" for k, m in self.stats.items()}


def main():
    torch.manual_seed(0)
    net = Denoiser()
    trainer = LTRTrainer(DiffusionActor(net), torch.optim.AdamW(net.parameters(), lr=1e-3))
    loader = [torch.rand(16, 8) * 2 - 1 for _ in range(6)]
    for epoch in range(2):
        print(epoch, trainer.cycle_dataset(loader))


if __name__ == "__main__":
    main()
