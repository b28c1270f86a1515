# corpus: algorithm/trainer wrapper with gradient accumulation whose update_with_gradient helper clears the gradients at the start of every micro-batch, so each accumulated step only applies the last micro-batch's gradient
# source: https://github.com/HorizonRobotics/alf/pull/1788
import argparse
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

LossInfo = namedtuple("LossInfo", ["loss", "extra"])


class Algorithm(nn.Module):
    def __init__(self, grad_acc_steps=4, grad_clip=1.0, lr=1e-3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=lr)
        self.grad_acc_steps = grad_acc_steps
        self.grad_clip = grad_clip
        self._micro_step = 0

    def train_step(self, batch):
        x, y = batch
        logits = self.net(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(1) == y).float().mean()
        return LossInfo(loss=loss, extra={"acc": acc.item()})

    def update_with_gradient(self, loss_info):
        self.optimizer.zero_grad()  # expect: GG201
        (loss_info.loss / self.grad_acc_steps).backward()
        self._micro_step += 1
        grad_norm = None
        if self._micro_step % self.grad_acc_steps == 0:
            grad_norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.grad_clip)
            self.optimizer.step()
        return grad_norm


class Trainer:
    def __init__(self, config):
        self.config = config
        self.algorithm = Algorithm(grad_acc_steps=config.grad_acc_steps)

    def train_iter(self, it):
        batch = (torch.randn(16, 8), torch.randint(0, 3, (16,)))
        loss_info = self.algorithm.train_step(batch)
        grad_norm = self.algorithm.update_with_gradient(loss_info)
        if grad_norm is not None:
            print(f"iter {it} loss {loss_info.loss.item():.4f} acc {loss_info.extra['acc']:.2f} |g| {grad_norm:.4f}")

    def train(self):
        for it in range(self.config.num_iterations):
            self.train_iter(it)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grad_acc_steps", type=int, default=4)
    parser.add_argument("--num_iterations", type=int, default=8)
    config = parser.parse_args([])
    torch.manual_seed(0)
    Trainer(config).train()


if __name__ == "__main__":
    main()
