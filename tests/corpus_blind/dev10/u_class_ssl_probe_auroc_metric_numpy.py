# corpus: SimCLR-style module with an online linear probe feeds probe scores that still require grad into a hand-written sklearn-like ROC-AUC Metric, whose compute() calls .numpy() on them
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/5376
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def roc_auc_score(y_true, y_score):
    pos, neg = y_score[y_true == 1], y_score[y_true == 0]
    if len(pos) == 0 or len(neg) == 0:
        return 0.5
    greater = (pos[:, None] > neg[None, :]).mean()
    ties = (pos[:, None] == neg[None, :]).mean()
    return float(greater + 0.5 * ties)


class ROCAUC:
    def __init__(self):
        self.reset()

    def reset(self):
        self.preds, self.target = [], []

    def update(self, preds, target):
        self.preds.append(preds)
        self.target.append(target)

    def compute(self):
        preds = torch.cat(self.preds).numpy()  # expect: GG110
        target = torch.cat(self.target).numpy()
        return roc_auc_score(target, preds)


class SimCLRWithProbe(nn.Module):
    def __init__(self, in_dim=16, feat_dim=32, proj_dim=8, temperature=0.5):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU())
        self.projector = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, proj_dim))
        self.probe = nn.Linear(feat_dim, 2)
        self.t = temperature
        self.train_auroc = ROCAUC()

    def nt_xent(self, z1, z2):
        z = F.normalize(torch.cat([z1, z2]), dim=1)
        sim = z @ z.t() / self.t
        sim.fill_diagonal_(-1e9)
        n = z1.size(0)
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return F.cross_entropy(sim, targets)

    def training_step(self, batch):
        (x1, x2), y = batch
        h1, h2 = self.encoder(x1), self.encoder(x2)
        ssl_loss = self.nt_xent(self.projector(h1), self.projector(h2))
        probe_logits = self.probe(h1.detach())
        probe_loss = F.cross_entropy(probe_logits, y)
        self.train_auroc.update(probe_logits.softmax(dim=1)[:, 1], y)
        return ssl_loss + probe_loss


class LoopRunner:
    def __init__(self, module, lr=1e-3):
        self.module = module
        self.optimizer = torch.optim.Adam(module.parameters(), lr=lr)

    def run_epoch(self, loader, epoch):
        for batch in loader:
            loss = self.module.training_step(batch)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.on_train_epoch_end(epoch)

    def on_train_epoch_end(self, epoch):
        auc = self.module.train_auroc.compute()
        self.module.train_auroc.reset()
        print(f"epoch {epoch} probe auroc {auc:.3f}")


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def main():
    torch.manual_seed(0)
    loader = []
    for _ in range(4):
        x = torch.randn(16, 16)
        loader.append(((augment(x), augment(x)), (x[:, 0] > 0).long()))
    runner = LoopRunner(SimCLRWithProbe())
    for epoch in range(2):
        runner.run_epoch(loader, epoch)


if __name__ == "__main__":
    main()
