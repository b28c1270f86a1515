# corpus: multi-data multi-task Lightning-style module written in plain torch (matsciml shape): _compute_losses returns a nested {dataset: {task: {"loss", "log"}}} dict over one shared encoder forward, training_step sums every task loss into one scalar and backpropagates once, and the logged values are detached floats; correct
# source: https://github.com/IntelLabs/matsciml/issues/184
from collections import defaultdict
from typing import Dict

import torch
import torch.nn as nn
import torch.nn.functional as F


class SharedEncoder(nn.Module):
    def __init__(self, in_dim=12, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())

    def forward(self, x):
        return self.net(x)


class MultiTaskModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = SharedEncoder()
        self.heads = nn.ModuleDict({
            "IS2REDataset": nn.ModuleDict({"regression": nn.Linear(32, 2)}),
            "S2EFDataset": nn.ModuleDict({"regression": nn.Linear(32, 4)}),
        })
        self.logged = defaultdict(list)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)

    def _compute_losses(self, batch: Dict[str, Dict[str, torch.Tensor]]):
        losses = {}
        for dset, data in batch.items():
            emb = self.encoder(data["x"])
            out = self.heads[dset]["regression"](emb)
            if dset == "IS2REDataset":
                log = {"energy_init": F.mse_loss(out[:, 0], data["y"][:, 0]),
                       "energy_relaxed": F.mse_loss(out[:, 1], data["y"][:, 1])}
            else:
                log = {"energy": F.mse_loss(out[:, 0], data["y"][:, 0]),
                       "force": F.l1_loss(out[:, 1:], data["y"][:, 1:])}
            losses[dset] = {"regression": {"loss": sum(log.values()), "log": log}}
        return losses

    def training_step(self, batch, batch_idx):
        loss_dict = self._compute_losses(batch)
        total = torch.stack([task["loss"] for dset in loss_dict.values() for task in dset.values()]).sum()
        for dset, tasks in loss_dict.items():
            for task, entry in tasks.items():
                for key, value in entry["log"].items():
                    self.logged[f"train_{dset}.{task}.{key}"].append(value.detach().item())
        return {"loss": total}


def make_batch():
    return {"IS2REDataset": {"x": torch.randn(8, 12), "y": torch.randn(8, 2)},
            "S2EFDataset": {"x": torch.randn(8, 12), "y": torch.randn(8, 4)}}


def fit(module, n_steps=4):
    optimizer = module.configure_optimizers()
    module.train()
    for batch_idx in range(n_steps):
        out = module.training_step(make_batch(), batch_idx)
        optimizer.zero_grad()
        out["loss"].backward()
        optimizer.step()
        print(f"step {batch_idx} total loss {out['loss'].item():.4f}")


def main():
    torch.manual_seed(0)
    module = MultiTaskModule()
    fit(module)
    for key, values in sorted(module.logged.items()):
        print(key, round(sum(values) / len(values), 4))


if __name__ == "__main__":
    main()
