# corpus: BPR matrix-factorization recommender with item bias (sh0416/bpr BPR_Item shape) whose forward returns the scalar -log_prob + regularization for a batch of (u, i, j) triplets, trained with one backward per batch; evaluation builds top-k lists under torch.no_grad() and converts scores to numpy safely; correct
# source: https://github.com/sh0416/bpr/issues/13
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class BPR_Item(nn.Module):
    def __init__(self, user_size, item_size, dim, weight_decay):
        super().__init__()
        self.W = nn.Parameter(torch.empty(user_size, dim))
        self.H = nn.Parameter(torch.empty(item_size, dim))
        self.B = nn.Parameter(torch.rand(item_size))
        nn.init.xavier_normal_(self.W.data)
        nn.init.xavier_normal_(self.H.data)
        self.weight_decay = weight_decay

    def forward(self, u, i, j):
        u1, i1, j1 = self.W[u, :], self.H[i, :], self.H[j, :]
        x_ui = torch.mul(u1, i1).sum(dim=1) + self.B[i]
        x_uj = torch.mul(u1, j1).sum(dim=1) + self.B[j]
        log_prob = F.logsigmoid(x_ui - x_uj).sum()
        regularization = self.weight_decay * (u1.norm(dim=1).pow(2).sum() + i1.norm(dim=1).pow(2).sum()
                                              + j1.norm(dim=1).pow(2).sum())
        return -log_prob + regularization

    def recommend(self, u):
        return torch.mm(self.W[u, :], self.H.t()) + self.B


class TripletSampler:
    def __init__(self, user_items, item_size, batch_size, rng):
        self.user_items, self.item_size, self.batch_size, self.rng = user_items, item_size, batch_size, rng
        self.users = list(user_items)

    def __iter__(self):
        for _ in range(4):
            u = self.rng.choice(self.users, self.batch_size)
            i = np.array([self.rng.choice(self.user_items[x]) for x in u])
            j = self.rng.integers(0, self.item_size, self.batch_size)
            yield torch.from_numpy(u), torch.from_numpy(i), torch.from_numpy(j)


def precision_at_k(model, user_items, k=5):
    with torch.no_grad():
        users = torch.tensor(sorted(user_items))
        topk = torch.topk(model.recommend(users), k, dim=1).indices.numpy()
    hits = [len(set(row) & set(user_items[int(u)])) / k for u, row in zip(users, topk)]
    return float(np.mean(hits))


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    user_size, item_size = 15, 40
    user_items = {u: list(rng.choice(item_size, 6, replace=False)) for u in range(user_size)}
    model = BPR_Item(user_size, item_size, dim=8, weight_decay=0.025)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(3):
        epoch_loss = 0.0
        for u, i, j in TripletSampler(user_items, item_size, 16, rng):
            optimizer.zero_grad()
            loss = model(u, i, j)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        print(f"epoch {epoch} loss {epoch_loss:.3f} P@5 {precision_at_k(model, user_items):.3f}")


if __name__ == "__main__":
    main()
