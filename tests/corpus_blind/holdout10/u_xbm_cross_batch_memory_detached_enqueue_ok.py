# corpus: correct cross-batch memory (XBM) metric learning: embeddings are enqueued into a ring-buffer memory with .detach(), the contrastive loss pairs current embeddings with memory entries as constants, one backward per step
# source: https://github.com/bnu-wangxun/Deep_Metric/issues/45
import torch
import torch.nn as nn
import torch.nn.functional as F


class CrossBatchMemory:
    def __init__(self, size, dim):
        self.feats = torch.zeros(size, dim)
        self.targets = torch.full((size,), -1, dtype=torch.long)
        self.ptr = 0
        self.size = size
        self.filled = 0

    def enqueue_dequeue(self, feats, targets):
        n = feats.size(0)
        idx = (torch.arange(n) + self.ptr) % self.size
        self.feats[idx] = feats.detach()
        self.targets[idx] = targets
        self.ptr = (self.ptr + n) % self.size
        self.filled = min(self.filled + n, self.size)

    def get(self):
        return self.feats[: self.filled], self.targets[: self.filled]


def contrastive_loss(anchors, anchor_t, bank, bank_t, margin=0.5):
    sim = anchors @ bank.t()
    pos = anchor_t.unsqueeze(1) == bank_t.unsqueeze(0)
    pos_loss = ((1 - sim) * pos).sum() / pos.sum().clamp(min=1)
    neg_loss = (F.relu(sim - margin) * (~pos)).sum() / (~pos).sum().clamp(min=1)
    return pos_loss + neg_loss


class Embedder(nn.Module):
    def __init__(self, in_dim=16, dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


class XBMTrainer:
    def __init__(self, memory_size=64, start_iter=2):
        self.model = Embedder()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)
        self.memory = CrossBatchMemory(memory_size, 8)
        self.start_iter = start_iter

    def step(self, it, x, y):
        self.optimizer.zero_grad()
        feats = self.model(x)
        loss = contrastive_loss(feats, y, feats, y)
        if it >= self.start_iter:
            self.memory.enqueue_dequeue(feats, y)
            bank, bank_t = self.memory.get()
            loss = loss + contrastive_loss(feats, y, bank, bank_t)
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = XBMTrainer()
    centers = torch.randn(4, 16)
    for it in range(8):
        y = torch.randint(0, 4, (16,))
        x = centers[y] + 0.3 * torch.randn(16, 16)
        print(it, round(trainer.step(it, x, y), 4))


if __name__ == "__main__":
    main()
