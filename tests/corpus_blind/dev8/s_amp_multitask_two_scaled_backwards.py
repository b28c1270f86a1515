# corpus: mixed-precision multi-task trainer (shared encoder, classification + box-regression heads) that backpropagates each scaled loss separately, as with FP16_Optimizer.backward(loss1); backward(loss2); the encoder graph is freed by the first pass
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/NVIDIA/apex/issues/85
import argparse
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    lr: float = 1e-3
    steps: int = 2
    amp_dtype: torch.dtype = torch.bfloat16


class MultiTaskNet(nn.Module):
    def __init__(self, in_dim=12, hidden=32, num_classes=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU())
        self.cls_head = nn.Linear(hidden, num_classes)
        self.box_head = nn.Linear(hidden, 4)

    def forward(self, x):
        h = self.encoder(x)
        return self.cls_head(h), self.box_head(h)


class AmpTrainer:
    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.model = MultiTaskNet()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr)
        self.scaler = torch.amp.GradScaler("cpu")

    def compute_losses(self, batch):
        x, labels, boxes = batch
        with torch.autocast("cpu", dtype=self.cfg.amp_dtype):
            logits, box_pred = self.model(x)
            loss_cls = F.cross_entropy(logits.float(), labels)
            loss_box = F.smooth_l1_loss(box_pred.float(), boxes)
        return loss_cls, loss_box

    def step(self, batch):
        self.optimizer.zero_grad(set_to_none=True)
        loss_cls, loss_box = self.compute_losses(batch)
        self.scaler.scale(loss_cls).backward()
        self.scaler.scale(loss_box).backward()  # expect: GG102
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss_cls.item(), loss_box.item()


def make_batch():
    return torch.randn(8, 12), torch.randint(0, 4, (8,)), torch.randn(8, 4)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = AmpTrainer(Config(steps=args.steps))
    for it in range(trainer.cfg.steps):
        print(it, trainer.step(make_batch()))


if __name__ == "__main__":
    main()
