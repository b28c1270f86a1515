# corpus: LTR-style tracking trainer: the actor's stats dict carries the graph-bearing loss tensors and _update_stats feeds them to AverageMeter.update, whose running sum keeps every training iteration's graph alive
# source: https://github.com/visionml/pytracking/pull/313
from collections import OrderedDict
from dataclasses import dataclass

import torch
import torch.nn as nn


class AverageMeter:
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n  # also: GG301
        self.count += n
        self.avg = self.sum / self.count


class IoUPredictor(nn.Module):
    def __init__(self, feat_dim=16, hidden=32):
        super().__init__()
        self.feature = nn.Sequential(
            nn.Linear(feat_dim, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.iou_head = nn.Sequential(nn.Linear(hidden + 4, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, train_feat, proposals):
        f = self.feature(train_feat)
        f = f.unsqueeze(1).expand(-1, proposals.shape[1], -1)
        return self.iou_head(torch.cat([f, proposals], dim=-1)).squeeze(-1)


class AtomActor:
    """Runs the network on a batch and computes the IoU regression loss."""

    def __init__(self, net, objective):
        self.net = net
        self.objective = objective

    def train(self, mode=True):
        self.net.train(mode)

    def __call__(self, data):
        iou_pred = self.net(data["train_feat"], data["test_proposals"])
        loss = self.objective(iou_pred, data["proposal_iou"])
        stats = {"Loss/total": loss, "Loss/iou": loss}
        return loss, stats


@dataclass
class TinyLoader:
    name: str
    training: bool
    num_batches: int = 6
    batch_size: int = 4

    def __iter__(self):
        for _ in range(self.num_batches):
            yield {
                "train_feat": torch.randn(self.batch_size, 16),
                "test_proposals": torch.rand(self.batch_size, 8, 4),
                "proposal_iou": torch.rand(self.batch_size, 8),
            }


class LTRTrainer:
    def __init__(self, actor, loaders, optimizer):
        self.actor = actor
        self.loaders = loaders
        self.optimizer = optimizer
        self.stats = OrderedDict({loader.name: None for loader in loaders})
        self.epoch = 0

    def cycle_dataset(self, loader):
        self.actor.train(loader.training)
        torch.set_grad_enabled(loader.training)
        for i, data in enumerate(loader, 1):
            loss, stats = self.actor(data)
            if loader.training:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            batch_size = data["train_feat"].shape[0]
            self._update_stats(stats, batch_size, loader)
        torch.set_grad_enabled(True)

    def train_epoch(self):
        for loader in self.loaders:
            self.cycle_dataset(loader)
        self._print_stats()

    def _update_stats(self, new_stats, batch_size, loader):
        if loader.name not in self.stats.keys() or self.stats[loader.name] is None:
            self.stats[loader.name] = OrderedDict({name: AverageMeter() for name in new_stats.keys()})
        for name, val in new_stats.items():
            if name not in self.stats[loader.name].keys():
                self.stats[loader.name][name] = AverageMeter()
            self.stats[loader.name][name].update(val, batch_size)  # expect: GG301

    def _print_stats(self):
        for loader_name, loader_stats in self.stats.items():
            msg = ", ".join(f"{k}={float(m.avg):.4f}" for k, m in loader_stats.items())
            print(f"[epoch {self.epoch}] {loader_name}: {msg}")

    def train(self, max_epochs):
        for epoch in range(1, max_epochs + 1):
            self.epoch = epoch
            self.train_epoch()


def main():
    torch.manual_seed(0)
    net = IoUPredictor()
    actor = AtomActor(net, nn.MSELoss())
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    loaders = [TinyLoader("train", training=True), TinyLoader("val", training=False, num_batches=2)]
    trainer = LTRTrainer(actor, loaders, optimizer)
    trainer.train(max_epochs=2)


if __name__ == "__main__":
    main()
