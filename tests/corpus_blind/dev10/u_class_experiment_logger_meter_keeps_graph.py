# corpus: experiment logger with AverageValue meters is updated with the loss tensor itself, so each meter's running sum chains every iteration's autograd graph and memory grows for the whole run
# source: https://github.com/oval-group/mlogger/issues/3
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageValue:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self._sum, self._count = 0.0, 0

    def update(self, val, n=1):
        self._sum += val * n  # also: GG301
        self._count += n

    @property
    def value(self):
        return self._sum / max(self._count, 1)


class Experiment:
    def __init__(self, name):
        self.name = name
        self.meters = defaultdict(dict)
        self.history = defaultdict(list)

    def add_metric(self, tag, name):
        self.meters[tag][name] = AverageValue(name)
        return self.meters[tag][name]

    def log_with_tag(self, tag):
        for name, meter in self.meters[tag].items():
            self.history[f"{tag}/{name}"].append(float(meter.value))
            meter.reset()


class AliTrainer:
    """Encoder / decoder trained with a reconstruction + latent-matching loss."""

    def __init__(self, xp, latent=4):
        self.enc = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, latent))
        self.dec = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, 12))
        params = list(self.enc.parameters()) + list(self.dec.parameters())
        self.optimizer = torch.optim.Adam(params, lr=1e-3)
        self.xp = xp
        self.loss_meter = xp.add_metric("train", "loss")
        self.rec_meter = xp.add_metric("train", "rec")

    def train_step(self, x):
        z = self.enc(x)
        rec_loss = F.mse_loss(self.dec(z), x)
        prior_loss = z.pow(2).mean()
        loss = rec_loss + 0.1 * prior_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.loss_meter.update(loss, n=x.size(0))  # expect: GG301
        self.rec_meter.update(rec_loss, n=x.size(0))  # also: GG301

    def train(self, loader, epochs=2):
        for epoch in range(epochs):
            for x in loader:
                self.train_step(x)
            self.xp.log_with_tag("train")
            print(f"epoch {epoch}: loss {self.xp.history['train/loss'][-1]:.4f}")


def main():
    torch.manual_seed(0)
    loader = [torch.randn(8, 12) for _ in range(5)]
    trainer = AliTrainer(Experiment("ali"))
    trainer.train(loader)


if __name__ == "__main__":
    main()
