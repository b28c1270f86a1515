# corpus: DLRM click-through-rate trainer (OneFlow models DLRM shape) that collects each training batch's sigmoid predictions for a running AUC with pred.numpy() straight after the optimizer step, on a tensor that still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/Oneflow-Inc/models/pull/331
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def roc_auc_score(labels, preds):
    order = np.argsort(preds)
    ranks = np.empty(len(preds))
    ranks[order] = np.arange(1, len(preds) + 1)
    n_pos = labels.sum()
    n_neg = len(labels) - n_pos
    return (ranks[labels == 1].sum() - n_pos * (n_pos + 1) / 2) / max(n_pos * n_neg, 1)


class DLRM(nn.Module):
    def __init__(self, num_dense=4, table_sizes=(20, 30, 15), embed_dim=8):
        super().__init__()
        self.bottom_mlp = nn.Sequential(nn.Linear(num_dense, 16), nn.ReLU(), nn.Linear(16, embed_dim), nn.ReLU())
        self.embeddings = nn.ModuleList([nn.Embedding(n, embed_dim) for n in table_sizes])
        n_feats = len(table_sizes) + 1
        n_inter = n_feats * (n_feats - 1) // 2
        self.top_mlp = nn.Sequential(nn.Linear(embed_dim + n_inter, 16), nn.ReLU(), nn.Linear(16, 1))

    def interaction(self, dense, sparse):
        feats = torch.stack([dense] + sparse, dim=1)
        z = torch.bmm(feats, feats.transpose(1, 2))
        li, lj = torch.tril_indices(feats.size(1), feats.size(1), offset=-1)
        return torch.cat([dense, z[:, li, lj]], dim=1)

    def forward(self, dense_x, sparse_x):
        dense = self.bottom_mlp(dense_x)
        sparse = [emb(sparse_x[:, k]) for k, emb in enumerate(self.embeddings)]
        return self.top_mlp(self.interaction(dense, sparse)).squeeze(1)


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.labels, self.preds = [], []

    def train_one_step(self, dense_x, sparse_x, labels):
        logits = self.model(dense_x, sparse_x)
        loss = F.binary_cross_entropy_with_logits(logits, labels)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        pred = torch.sigmoid(logits)
        return loss, pred

    def train(self, loader, log_interval=2):
        for step, (dense_x, sparse_x, labels) in enumerate(loader, 1):
            loss, pred = self.train_one_step(dense_x, sparse_x, labels)
            self.labels.append(labels.numpy())
            self.preds.append(pred.numpy())  # expect: GG110
            if step % log_interval == 0:
                auc = roc_auc_score(np.concatenate(self.labels), np.concatenate(self.preds))
                print(f"iter {step} loss {loss.item():.4f} train auc {auc:.4f}")


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(32, 4), torch.stack([torch.randint(0, n, (32,)) for n in (20, 30, 15)], 1),
               torch.randint(0, 2, (32,)).float()) for _ in range(4)]
    Trainer(DLRM()).train(loader)


if __name__ == "__main__":
    main()
