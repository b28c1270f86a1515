# corpus: A Metattack-style GNN poisoning attack unrolls the surrogate GCN's training with autograd.grad(create_graph=True) and takes the meta-gradient of the attack loss w.r.t. the adjacency perturbation; this is fine.
# source: https://github.com/ChandlerBang/pytorch-gnn-meta-attack/issues/2
import math

import torch
import torch.nn.functional as F
from torch.nn.parameter import Parameter


def normalize_adj_tensor(adj):
    mx = adj + torch.eye(adj.shape[0])
    rowsum = mx.sum(1)
    r_inv = rowsum.pow(-1 / 2).flatten()
    r_inv[torch.isinf(r_inv)] = 0.0
    r_mat_inv = torch.diag(r_inv)
    return r_mat_inv @ mx @ r_mat_inv


class Metattack(object):
    def __init__(self, nfeat, hidden_sizes, nclass, nnodes, train_iters=5, lr=0.1, momentum=0.9, lambda_=0.0):
        self.hidden_sizes = hidden_sizes
        self.nfeat = nfeat
        self.nclass = nclass
        self.train_iters = train_iters
        self.lr = lr
        self.momentum = momentum
        self.lambda_ = lambda_
        self.adj_changes = Parameter(torch.zeros(nnodes, nnodes))
        self.weights, self.w_velocities = [], []
        previous_size = nfeat
        for nhid in hidden_sizes + [nclass]:
            w = Parameter(torch.empty(previous_size, nhid))
            self.weights.append(w)
            self.w_velocities.append(torch.zeros(previous_size, nhid))
            previous_size = nhid
        self._initialize()

    def _initialize(self):
        for w, v in zip(self.weights, self.w_velocities):
            stdv = 1.0 / math.sqrt(w.size(1))
            w.data.uniform_(-stdv, stdv)
            v.data.fill_(0)

    def get_modified_adj(self, ori_adj):
        adj_changes_square = self.adj_changes - torch.diag(torch.diag(self.adj_changes, 0))
        adj_changes_square = adj_changes_square + adj_changes_square.t()
        adj_changes_square = torch.clamp(adj_changes_square, -1, 1)
        return adj_changes_square + ori_adj

    def forward_gcn(self, features, adj_norm):
        hidden = features
        for ix, w in enumerate(self.weights):
            hidden = adj_norm @ hidden @ w
            if ix != len(self.weights) - 1:
                hidden = F.relu(hidden)
        return F.log_softmax(hidden, dim=1)

    def inner_train(self, features, adj_norm, idx_train, labels):
        self._initialize()
        for ix in range(len(self.weights)):
            self.weights[ix] = self.weights[ix].detach()
            self.weights[ix].requires_grad = True
            self.w_velocities[ix] = self.w_velocities[ix].detach()
            self.w_velocities[ix].requires_grad = True
        for j in range(self.train_iters):
            output = self.forward_gcn(features, adj_norm)
            loss_labeled = F.nll_loss(output[idx_train], labels[idx_train])
            weight_grads = torch.autograd.grad(loss_labeled, self.weights, create_graph=True)
            self.w_velocities = [self.momentum * v + g for v, g in zip(self.w_velocities, weight_grads)]
            self.weights = [w - self.lr * v for w, v in zip(self.weights, self.w_velocities)]

    def get_meta_grad(self, features, adj_norm, idx_train, idx_unlabeled, labels, labels_self_training):
        output = self.forward_gcn(features, adj_norm)
        loss_labeled = F.nll_loss(output[idx_train], labels[idx_train])
        loss_unlabeled = F.nll_loss(output[idx_unlabeled], labels_self_training[idx_unlabeled])
        if self.lambda_ == 1:
            attack_loss = loss_labeled
        elif self.lambda_ == 0:
            attack_loss = loss_unlabeled
        else:
            attack_loss = self.lambda_ * loss_labeled + (1 - self.lambda_) * loss_unlabeled
        print("GCN loss on unlabled data: %.4f" % loss_unlabeled.item())
        adj_grad = torch.autograd.grad(attack_loss, self.adj_changes, retain_graph=True)[0]
        return adj_grad

    def attack(self, features, ori_adj, labels, idx_train, idx_unlabeled, n_perturbations):
        labels_self_training = self.forward_gcn(features, normalize_adj_tensor(ori_adj)).argmax(1).detach()
        labels_self_training[idx_train] = labels[idx_train]
        for i in range(n_perturbations):
            modified_adj = self.get_modified_adj(ori_adj)
            adj_norm = normalize_adj_tensor(modified_adj)
            self.inner_train(features, adj_norm, idx_train, labels)
            adj_grad = self.get_meta_grad(features, adj_norm, idx_train, idx_unlabeled, labels, labels_self_training)
            with torch.no_grad():
                adj_meta_score = adj_grad * (-2 * modified_adj + 1)
                adj_meta_score = adj_meta_score - adj_meta_score.min()
                adj_meta_score.fill_diagonal_(0)
                argmax = torch.argmax(adj_meta_score)
                row_idx, col_idx = argmax // ori_adj.shape[0], argmax % ori_adj.shape[0]
                self.adj_changes.data[row_idx][col_idx] += -2 * modified_adj[row_idx][col_idx] + 1
            print("perturbation %d: flip edge (%d, %d)" % (i, row_idx, col_idx))
        return self.get_modified_adj(ori_adj).detach()


def random_graph(n=12, nfeat=6, nclass=3):
    adj = (torch.rand(n, n) > 0.7).float()
    adj = torch.triu(adj, 1)
    adj = adj + adj.t()
    features = torch.randn(n, nfeat)
    labels = torch.randint(0, nclass, (n,))
    return adj, features, labels


def main():
    torch.manual_seed(0)
    adj, features, labels = random_graph()
    idx_train = torch.arange(0, 5)
    idx_unlabeled = torch.arange(5, 12)
    model = Metattack(nfeat=6, hidden_sizes=[8], nclass=3, nnodes=12, train_iters=5)
    modified_adj = model.attack(features, adj, labels, idx_train, idx_unlabeled, n_perturbations=2)
    print("edges changed:", int((modified_adj - adj).abs().sum().item()) // 2)


if __name__ == "__main__":
    main()
