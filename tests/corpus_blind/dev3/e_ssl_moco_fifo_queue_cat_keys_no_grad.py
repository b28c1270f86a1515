# corpus: MoCo-style learner keeps a FIFO negative queue rebuilt out of place with torch.cat from momentum-encoder keys computed under no_grad; the old queue tensor used by the logits is never modified
# source: https://github.com/facebookresearch/moco/issues/128
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_dim=24, feat_dim=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 32), nn.BatchNorm1d(32), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, feat_dim))

    def forward(self, x):
        return F.normalize(self.head(self.backbone(x)), dim=1)


class MocoLearner(nn.Module):
    def __init__(self, feat_dim=16, K=40, m=0.99, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = Encoder(feat_dim=feat_dim)
        self.encoder_k = copy.deepcopy(self.encoder_q)
        for p in self.encoder_k.parameters():
            p.requires_grad_(False)
        self.register_buffer("queue", F.normalize(torch.randn(feat_dim, K), dim=0))

    @torch.no_grad()
    def momentum_update(self):
        for p_q, p_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            p_k.mul_(self.m).add_(p_q.detach(), alpha=1 - self.m)

    @torch.no_grad()
    def dequeue_and_enqueue(self, keys):
        # newest keys on the left, oldest dropped on the right (FIFO)
        self.queue = torch.cat((keys.T, self.queue), 1)
        self.queue = self.queue[:, 0:self.K]

    def training_step(self, view_q, view_k):
        q = self.encoder_q(view_q)
        with torch.no_grad():
            self.momentum_update()
            k = self.encoder_k(view_k)
        l_pos = (q * k).sum(dim=1, keepdim=True)
        l_neg = q @ self.queue
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(q.shape[0], dtype=torch.long)
        loss = F.cross_entropy(logits, labels)
        self.dequeue_and_enqueue(k)
        return {"loss": loss, "pos_sim": l_pos.mean().detach(), "neg_sim": l_neg.mean().detach()}


class Trainer:
    def __init__(self, learner, lr=0.05):
        self.learner = learner
        self.opt = torch.optim.SGD([p for p in learner.parameters() if p.requires_grad], lr=lr, momentum=0.9)
        self.history = []

    def fit(self, batches, epochs=2):
        for epoch in range(epochs):
            for x in batches:
                view_q = x + 0.1 * torch.randn_like(x)
                view_k = x * (1 + 0.1 * torch.randn_like(x))
                out = self.learner.training_step(view_q, view_k)
                self.opt.zero_grad()
                out["loss"].backward()
                self.opt.step()
                self.history.append({k: v.item() for k, v in out.items()})
            print(epoch, self.history[-1])


if __name__ == "__main__":
    torch.manual_seed(0)
    learner = MocoLearner()
    data = [torch.randn(8, 24) for _ in range(4)]
    Trainer(learner).fit(data)
