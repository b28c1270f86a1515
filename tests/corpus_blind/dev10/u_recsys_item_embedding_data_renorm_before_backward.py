# corpus: two-tower retrieval recommender scoring a user against the full item-embedding table; the trainer max-norm-renormalises the item rows through .data between forward and backward, silently changing the weight the matmul saved, so the user-tower gradients are computed with the wrong item vectors
# source: https://github.com/pytorch/pytorch/pull/45595
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoTowerRecommender(nn.Module):
    def __init__(self, n_users, n_items, dim=8):
        super().__init__()
        self.user_emb = nn.Embedding(n_users, dim)
        self.user_mlp = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.item_emb = nn.Embedding(n_items, dim)

    def user_vector(self, users):
        return self.user_mlp(self.user_emb(users))

    def forward(self, users):
        # full softmax over the catalogue: logits = u @ E_items^T
        return self.user_vector(users) @ self.item_emb.weight.t()


class RecTrainer:
    def __init__(self, model, max_norm=1.0):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.max_norm = max_norm

    def renorm_items(self, item_ids):
        rows = self.model.item_emb.weight.data[item_ids]
        norms = rows.norm(dim=1, keepdim=True).clamp(min=self.max_norm)
        self.model.item_emb.weight.data[item_ids] = rows * (self.max_norm / norms)  # expect: GG203

    def train_step(self, users, items):
        self.optimizer.zero_grad()
        logits = self.model(users)
        loss = F.cross_entropy(logits, items)
        self.renorm_items(items)
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    model = RecTrainer(TwoTowerRecommender(n_users=20, n_items=30))
    for epoch in range(5):
        users = torch.randint(0, 20, (16,))
        items = (users * 7) % 30
        print(epoch, round(model.train_step(users, items), 4))


if __name__ == "__main__":
    main()
