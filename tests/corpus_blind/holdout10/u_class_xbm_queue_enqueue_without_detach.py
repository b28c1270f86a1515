# corpus: cross-batch memory (XBM) metric-learning trainer enqueues the current embeddings without .detach(), so the memory carries last iteration's graph into the next contrastive loss
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/bnu-wangxun/Deep_Metric/issues/45
import torch
import torch.nn as nn
import torch.nn.functional as F


class XBM:
    def __init__(self, size, dim):
        self.K = size
        self.feats = torch.zeros(size, dim)
        self.targets = torch.full((size,), -1, dtype=torch.long)
        self.ptr = 0

    @property
    def is_full(self):
        return bool((self.targets != -1).all())

    def get(self):
        if self.is_full:
            return self.feats, self.targets
        return self.feats[: self.ptr], self.targets[: self.ptr]

    def enqueue_dequeue(self, feats, targets):
        q_size = len(targets)
        if self.ptr + q_size > self.K:
            self.ptr = 0
        self.feats[self.ptr: self.ptr + q_size] = feats
        self.targets[self.ptr: self.ptr + q_size] = targets
        self.ptr += q_size


class ContrastiveLoss(nn.Module):
    def __init__(self, margin=0.5):
        super().__init__()
        self.margin = margin

    def forward(self, inputs_col, targets_col, inputs_row, targets_row):
        sim = inputs_col @ inputs_row.t()
        pos = targets_col[:, None] == targets_row[None, :]
        pos_loss = ((1 - sim) * pos.float()).sum() / pos.sum().clamp(min=1)
        neg_loss = (F.relu(sim - self.margin) * (~pos).float()).sum() / (~pos).sum().clamp(min=1)
        return pos_loss + neg_loss


class Embedder(nn.Module):
    def __init__(self, in_dim=20, dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


class MetricTrainer:
    def __init__(self, xbm_size=64, xbm_start_iter=0):
        self.model = Embedder()
        self.criterion = ContrastiveLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.xbm = XBM(xbm_size, 8)
        self.xbm_start_iter = xbm_start_iter

    def do_train(self, loader):
        for iteration, (images, targets) in enumerate(loader):
            feats = self.model(images)
            loss = self.criterion(feats, targets, feats, targets)
            if iteration >= self.xbm_start_iter:
                self.xbm.enqueue_dequeue(feats, targets)  # expect: GG104
                xbm_feats, xbm_targets = self.xbm.get()
                loss = loss + self.criterion(feats, targets, xbm_feats, xbm_targets)
            self.optimizer.zero_grad()
            loss.backward()  # also: GG104
            self.optimizer.step()
            print(f"iter {iteration} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(16, 20), torch.randint(0, 4, (16,))) for _ in range(4)]
    MetricTrainer().do_train(loader)


if __name__ == "__main__":
    main()
