# corpus: LightGCN recommender trainer (GDE/LightGCN shape) that propagates user/item embeddings over the normalized adjacency once per epoch via model.computer() and then reuses those propagated embeddings for every BPR minibatch; the second minibatch backward walks the first one's freed propagation graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/tanatosuu/GDE/issues/4
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def build_norm_adj(n_users, n_items, interactions):
    n = n_users + n_items
    adj = torch.zeros(n, n)
    for u, i in interactions:
        adj[u, n_users + i] = 1.0
        adj[n_users + i, u] = 1.0
    deg = adj.sum(1)
    d_inv_sqrt = deg.pow(-0.5)
    d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.0
    return d_inv_sqrt.unsqueeze(1) * adj * d_inv_sqrt.unsqueeze(0)


class LightGCN(nn.Module):
    def __init__(self, n_users, n_items, graph, dim=16, n_layers=3):
        super().__init__()
        self.n_users, self.n_items, self.n_layers = n_users, n_items, n_layers
        self.embedding_user = nn.Embedding(n_users, dim)
        self.embedding_item = nn.Embedding(n_items, dim)
        nn.init.normal_(self.embedding_user.weight, std=0.1)
        nn.init.normal_(self.embedding_item.weight, std=0.1)
        self.graph = graph

    def computer(self):
        all_emb = torch.cat([self.embedding_user.weight, self.embedding_item.weight])
        embs = [all_emb]
        for _ in range(self.n_layers):
            all_emb = self.graph @ all_emb
            embs.append(all_emb)
        light_out = torch.stack(embs, dim=1).mean(dim=1)
        return torch.split(light_out, [self.n_users, self.n_items])


def bpr_loss(all_users, all_items, users, pos, neg, reg=1e-4):
    u, p, n = all_users[users], all_items[pos], all_items[neg]
    pos_scores = (u * p).sum(1)
    neg_scores = (u * n).sum(1)
    loss = F.softplus(neg_scores - pos_scores).mean()
    reg_loss = 0.5 * (u.norm(2).pow(2) + p.norm(2).pow(2) + n.norm(2).pow(2)) / len(users)
    return loss + reg * reg_loss


def sample_batches(interactions, n_items, batch_size, rng):
    order = rng.permutation(len(interactions))
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        users = torch.tensor([interactions[k][0] for k in idx])
        pos = torch.tensor([interactions[k][1] for k in idx])
        neg = torch.from_numpy(rng.integers(0, n_items, len(idx)))
        yield users, pos, neg


class BPRTrainer:
    def __init__(self, model, interactions, lr=1e-2, batch_size=16):
        self.model, self.interactions, self.batch_size = model, interactions, batch_size
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.rng = np.random.default_rng(0)

    def train_epoch(self):
        all_users, all_items = self.model.computer()  # expect: GG103
        total = 0.0
        for users, pos, neg in sample_batches(self.interactions, self.model.n_items, self.batch_size, self.rng):
            loss = bpr_loss(all_users, all_items, users, pos, neg)
            self.opt.zero_grad()
            loss.backward()  # also: GG103
            self.opt.step()
            total += loss.item()
        return total


def main():
    torch.manual_seed(0)
    n_users, n_items = 20, 30
    rng = np.random.default_rng(1)
    interactions = list({(int(u), int(i)) for u, i in zip(rng.integers(0, n_users, 80), rng.integers(0, n_items, 80))})
    model = LightGCN(n_users, n_items, build_norm_adj(n_users, n_items, interactions))
    trainer = BPRTrainer(model, interactions)
    for epoch in range(3):
        print("epoch", epoch, "bpr", round(trainer.train_epoch(), 4))


if __name__ == "__main__":
    main()
