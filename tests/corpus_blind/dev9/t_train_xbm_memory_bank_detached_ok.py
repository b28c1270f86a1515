# corpus: metric-learning trainer with a cross-batch memory (XBM): current embeddings stay attached, enqueued copies are detached, so each step backpropagates only through its own batch (correct)
# source: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/142
import torch
import torch.nn as nn
import torch.nn.functional as F


class CrossBatchMemory:
    def __init__(self, size, dim):
        self.feats = torch.zeros(0, dim)
        self.labels = torch.zeros(0, dtype=torch.long)
        self.size = size

    def enqueue(self, feats, labels):
        self.feats = torch.cat([self.feats, feats.detach()])[-self.size:]
        self.labels = torch.cat([self.labels, labels])[-self.size:]


def contrastive_loss(anchors, anchor_labels, refs, ref_labels, margin=0.5):
    sim = anchors @ refs.t()
    pos = anchor_labels[:, None] == ref_labels[None, :]
    pos_loss = ((1 - sim) * pos).sum() / pos.sum().clamp(min=1)
    neg_loss = (F.relu(sim - margin) * ~pos).sum() / (~pos).sum().clamp(min=1)
    return pos_loss + neg_loss


class Embedder(nn.Module):
    def __init__(self, in_dim=20, dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


class XBMTrainer:
    def __init__(self, model, memory_size=64, start_iter=1):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.memory = CrossBatchMemory(memory_size, 8)
        self.start_iter = start_iter
        self.history = []

    def step(self, it, x, y):
        feats = self.model(x)
        loss = contrastive_loss(feats, y, feats, y)
        if it >= self.start_iter and len(self.memory.feats) > 0:
            loss = loss + contrastive_loss(feats, y, self.memory.feats, self.memory.labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.memory.enqueue(feats, y)
        self.history.append(loss.item())
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = XBMTrainer(Embedder())
    for it in range(6):
        x, y = torch.randn(16, 20), torch.randint(0, 4, (16,))
        print(it, round(trainer.step(it, x, y), 4), len(trainer.memory.feats))


if __name__ == "__main__":
    main()
