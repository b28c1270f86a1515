# corpus: solo-learn-style SimCLR method with an online linear classifier: the classifier reads feats.detach() (result used, not discarded) so only the SSL loss trains the backbone, and the two losses in the outs dict are summed and backpropagated once (correct)
# source: https://github.com/vturrisi/solo-learn/issues/135
from dataclasses import dataclass
from typing import Dict, List

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class MethodConfig:
    in_dim: int = 20
    features_dim: int = 32
    proj_hidden_dim: int = 64
    proj_output_dim: int = 16
    num_classes: int = 4
    temperature: float = 0.2
    lr: float = 0.05
    classifier_lr: float = 0.1
    max_epochs: int = 2


def simclr_loss_func(z: torch.Tensor, indexes: torch.Tensor, temperature: float) -> torch.Tensor:
    z = F.normalize(z, dim=-1)
    sim = torch.exp(torch.einsum("if,jf->ij", z, z) / temperature)
    pos_mask = (indexes.unsqueeze(0) == indexes.unsqueeze(1)).float()
    pos_mask.fill_diagonal_(0)
    neg_mask = 1.0 - (indexes.unsqueeze(0) == indexes.unsqueeze(1)).float()
    pos = torch.sum(sim * pos_mask, 1)
    neg = torch.sum(sim * neg_mask, 1)
    return -torch.mean(torch.log(pos / (pos + neg)))


class BaseMethod(nn.Module):
    def __init__(self, cfg: MethodConfig):
        super().__init__()
        self.cfg = cfg
        self.backbone = nn.Sequential(nn.Linear(cfg.in_dim, cfg.features_dim), nn.BatchNorm1d(cfg.features_dim),
                                      nn.ReLU(), nn.Linear(cfg.features_dim, cfg.features_dim), nn.ReLU())
        self.classifier = nn.Linear(cfg.features_dim, cfg.num_classes)

    def forward(self, X) -> Dict[str, torch.Tensor]:
        feats = self.backbone(X)
        logits = self.classifier(feats.detach())
        return {"logits": logits, "feats": feats}

    def _base_shared_step(self, X, targets) -> Dict[str, torch.Tensor]:
        out = self(X)
        logits = out["logits"]
        loss = F.cross_entropy(logits, targets, ignore_index=-1)
        acc1 = (logits.argmax(dim=1) == targets).float().mean()
        out.update({"loss": loss, "acc1": acc1})
        return out

    def training_step(self, batch, batch_idx) -> Dict[str, torch.Tensor]:
        indexes, X, targets = batch
        outs: List[Dict[str, torch.Tensor]] = [self._base_shared_step(x, targets) for x in X]
        merged = {k: [out[k] for out in outs] for k in outs[0].keys()}
        merged["loss"] = sum(merged["loss"]) / len(merged["loss"])
        merged["acc1"] = sum(merged["acc1"]) / len(merged["acc1"])
        return merged


class SimCLR(BaseMethod):
    def __init__(self, cfg: MethodConfig):
        super().__init__(cfg)
        self.projector = nn.Sequential(nn.Linear(cfg.features_dim, cfg.proj_hidden_dim), nn.ReLU(),
                                       nn.Linear(cfg.proj_hidden_dim, cfg.proj_output_dim))

    def forward(self, X):
        out = super().forward(X)
        out["z"] = self.projector(out["feats"])
        return out

    def training_step(self, batch, batch_idx):
        indexes = batch[0]
        out = super().training_step(batch, batch_idx)
        class_loss = out["loss"]
        z = torch.cat(out["z"])
        n_augs = len(out["feats"])
        nce_loss = simclr_loss_func(z, indexes.repeat(n_augs), self.cfg.temperature)
        out["nce_loss"] = nce_loss
        out["total_loss"] = nce_loss + class_loss
        return out


class Runner:
    def __init__(self, method: SimCLR, cfg: MethodConfig):
        self.method = method
        self.cfg = cfg
        self.optimizer = torch.optim.SGD([
            {"params": list(method.backbone.parameters()) + list(method.projector.parameters()), "lr": cfg.lr},
            {"params": method.classifier.parameters(), "lr": cfg.classifier_lr, "weight_decay": 0.0},
        ], lr=cfg.lr, momentum=0.9)
        self.history = []

    def fit(self, loader):
        self.method.train()
        for epoch in range(self.cfg.max_epochs):
            for batch_idx, batch in enumerate(loader):
                out = self.method.training_step(batch, batch_idx)
                self.optimizer.zero_grad()
                out["total_loss"].backward()
                self.optimizer.step()
                self.history.append({"nce": out["nce_loss"].item(), "cls": out["loss"].item(),
                                     "acc1": out["acc1"].item()})
            last = self.history[-1]
            print(f"epoch {epoch}: nce={last['nce']:.4f} cls={last['cls']:.4f} acc1={last['acc1']:.2f}")


def make_loader(cfg: MethodConfig, num_batches=3, batch_size=8):
    loader = []
    for b in range(num_batches):
        x = torch.randn(batch_size, cfg.in_dim)
        views = [x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x)]
        indexes = torch.arange(b * batch_size, (b + 1) * batch_size)
        loader.append((indexes, views, torch.randint(0, cfg.num_classes, (batch_size,))))
    return loader


def main():
    torch.manual_seed(0)
    cfg = MethodConfig()
    runner = Runner(SimCLR(cfg), cfg)
    runner.fit(make_loader(cfg))


if __name__ == "__main__":
    main()
