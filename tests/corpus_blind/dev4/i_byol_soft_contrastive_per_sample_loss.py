# corpus: ASCL self-supervised wrapper in BYOL mode: _forward_byol returns the per-sample regression loss 2 - 2*cos (shape [N]) without reducing it, and the training loop calls loss.backward() on it
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/MrChenFeng/Adaptive-Soft-Contrastive-Learning_ICPR2022/issues/2
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelBase(nn.Module):
    def __init__(self, in_dim=24, feat_dim=32, projection_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.BatchNorm1d(feat_dim), nn.ReLU(),
                                 nn.Linear(feat_dim, feat_dim), nn.ReLU())
        self.projector = nn.Sequential(nn.Linear(feat_dim, 64), nn.ReLU(True), nn.Linear(64, projection_dim))

    def forward(self, x, feat=False):
        x = self.net(x)
        return x if feat else self.projector(x)


class ASCL(nn.Module):
    def __init__(self, model="byol", dim=16, mem_size=32, m=0.99, T1=0.1, T2=0.05, type="ascl", nn_num=1):
        super().__init__()
        self.K = mem_size
        self.m = m
        self.T1, self.T2 = T1, T2
        self.type = type
        self.model = model
        self.nn_num = nn_num
        self.encoder_q = ModelBase(projection_dim=dim)
        self.encoder_k = ModelBase(projection_dim=dim)
        self.predictor = nn.Sequential(nn.Linear(dim, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, dim))
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(dim, self.K), dim=0))
        self.register_buffer("labels", -1 * torch.ones(self.K).long())
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1.0 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys, labels):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        self.queue[:, ptr:ptr + batch_size] = keys.t()
        self.labels[ptr:ptr + batch_size] = labels
        self.queue_ptr[0] = (ptr + batch_size) % self.K

    def _forward_byol(self, im_q, im_k, targets):
        with torch.no_grad():
            self._momentum_update_key_encoder()
        q = self.encoder_q(im_q)
        k = self.encoder_k(im_k)
        hq = F.normalize(self.predictor(q), dim=-1, p=2)
        k = F.normalize(k, dim=-1, p=2)
        if self.type == "ascl":
            with torch.no_grad():
                distk = torch.einsum("nc,ck->nk", [k, k.T])
                logits_pd = distk[~torch.eye(distk.shape[0], dtype=bool)].reshape(distk.shape[0], -1)
                pseudo_labels = F.softmax(logits_pd / self.T2, 1)
                log_pseudo_labels = F.log_softmax(logits_pd / self.T2, 1)
                entropy = -torch.sum(pseudo_labels * log_pseudo_labels, dim=1, keepdim=True)
                c = 1 - entropy / np.log(pseudo_labels.shape[1])
                pseudo_labels = torch.minimum(self.nn_num * c * pseudo_labels, torch.tensor(1.0))
                labels = torch.zeros_like(distk)
                labels.fill_diagonal_(1)
                labels[~torch.eye(distk.shape[0], dtype=bool)] = pseudo_labels.reshape(-1)
                labels = labels / labels.sum(dim=1, keepdim=True)
            dist_real = torch.einsum("nc,ck->nk", [hq, k.T.detach()])
            loss = 2 - 2 * (labels.detach() * dist_real).sum(dim=-1)  # expect: GG109
        else:
            loss = 2 - 2 * (hq * k.detach()).sum(dim=-1)
        self._dequeue_and_enqueue(k, targets)
        return loss

    def forward(self, im_q, im_k, targets):
        if self.model == "byol":
            return self._forward_byol(im_q, im_k, targets)
        raise ValueError(f"Wrong model! {self.model}")


@dataclass
class TrainArgs:
    epochs: int = 2
    lr: float = 0.06
    batch_size: int = 8
    momentum: float = 0.9
    wd: float = 5e-4


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def train(net, data_loader, train_optimizer, epoch, args):
    net.train()
    total_loss, total_num = 0.0, 0
    for im, targets in data_loader:
        im_1, im_2 = augment(im), augment(im)
        loss = net(im_1, im_2, targets)
        train_optimizer.zero_grad()
        loss.backward()  # also: GG109
        train_optimizer.step()
        total_num += im.shape[0]
        total_loss += loss.item() * im.shape[0]
    print(f"Train Epoch: [{epoch}/{args.epochs}], Loss: {total_loss / total_num:.4f}")
    return total_loss / total_num


def main():
    torch.manual_seed(0)
    args = TrainArgs()
    model = ASCL(model="byol", type="ascl")
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=args.lr,
                                weight_decay=args.wd, momentum=args.momentum)
    loader = [(torch.randn(args.batch_size, 24), torch.randint(0, 4, (args.batch_size,))) for _ in range(3)]
    for epoch in range(1, args.epochs + 1):
        train(model, loader, optimizer, epoch, args)


if __name__ == "__main__":
    main()
