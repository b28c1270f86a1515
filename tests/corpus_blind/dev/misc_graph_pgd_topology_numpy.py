# corpus: graph topology PGD attack keeps its edge perturbation as a Parameter and calls .numpy() on it when sampling the final attack
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/DSE-MSU/DeepRobust/pull/16
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


class DenseGCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass):
        super().__init__()
        self.w1 = nn.Linear(nfeat, nhid)
        self.w2 = nn.Linear(nhid, nclass)

    def forward(self, features, adj):
        deg = adj.sum(1)
        d_inv = torch.diag(deg.pow(-0.5))
        a_hat = d_inv @ adj @ d_inv
        h = F.relu(a_hat @ self.w1(features))
        return a_hat @ self.w2(h)


class PGDAttack:
    def __init__(self, model, nnodes, loss_type="CE"):
        self.model = model
        self.nnodes = nnodes
        self.loss_type = loss_type
        n_pairs = nnodes * (nnodes - 1) // 2
        self.adj_changes = nn.Parameter(torch.zeros(n_pairs))
        self.tri = torch.triu_indices(nnodes, nnodes, offset=1)

    def get_modified_adj(self, ori_adj):
        m = torch.zeros(self.nnodes, self.nnodes)
        m[self.tri[0], self.tri[1]] = self.adj_changes
        m = m + m.t()
        return (torch.ones_like(ori_adj) - torch.eye(self.nnodes) - ori_adj) * m + ori_adj + torch.eye(self.nnodes)

    def projection(self, n_perturbations):
        with torch.no_grad():
            self.adj_changes.clamp_(0, 1)
            if self.adj_changes.sum() > n_perturbations:
                self.adj_changes.mul_(n_perturbations / self.adj_changes.sum())

    def attack(self, features, ori_adj, labels, idx_train, n_perturbations, epochs=5):
        self.model.eval()
        for t in range(epochs):
            modified_adj = self.get_modified_adj(ori_adj)
            output = self.model(features, modified_adj)
            loss = F.cross_entropy(output[idx_train], labels[idx_train])
            adj_grad = torch.autograd.grad(loss, self.adj_changes)[0]
            lr = 200 / np.sqrt(t + 1)
            with torch.no_grad():
                self.adj_changes.add_(lr * adj_grad)
            self.projection(n_perturbations)
        return self.random_sample(features, ori_adj, labels, idx_train, n_perturbations)

    def random_sample(self, features, ori_adj, labels, idx_train, n_perturbations, trials=4):
        best_loss = -1000
        best_s = None
        s = self.adj_changes.cpu().numpy()  # expect: GG110
        for _ in range(trials):
            sampled = np.random.binomial(1, s)
            if sampled.sum() > n_perturbations:
                continue
            with torch.no_grad():
                self.adj_changes.copy_(torch.tensor(sampled, dtype=torch.float32))
                output = self.model(features, self.get_modified_adj(ori_adj))
                loss = F.cross_entropy(output[idx_train], labels[idx_train])
            if loss > best_loss:
                best_loss = loss
                best_s = sampled
        return best_s


def main():
    n, nfeat = 10, 5
    features = torch.randn(n, nfeat)
    upper = torch.triu((torch.rand(n, n) > 0.7).float(), diagonal=1)
    adj = upper + upper.t()
    labels = torch.randint(0, 2, (n,))
    idx_train = torch.arange(6)
    victim = DenseGCN(nfeat, 8, 2)
    for p in victim.parameters():
        p.requires_grad_(False)
    attacker = PGDAttack(victim, n)
    attacker.attack(features, adj, labels, idx_train, n_perturbations=3)


if __name__ == "__main__":
    main()
