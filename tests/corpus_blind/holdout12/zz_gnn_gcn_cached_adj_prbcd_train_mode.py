# corpus: robust-GNN library GCN caches its preprocessed (normalised) adjacency whenever the model is in train mode; a PR-BCD attack run with attacked_model.train() caches the adjacency built from the learnable perturbed edge weights on step 1 and reuses that stale graph on step 2, so the second backward raises
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/sigeisler/robustness_of_gnns_at_scale/issues/4
import random
from typing import Callable, Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


def grad_with_checkpoint(outputs, inputs):
    inputs = (inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs)
    for input in inputs:
        if not input.is_leaf:
            input.retain_grad()
    torch.autograd.backward(outputs)  # also: GG104
    grad_outputs = []
    for input in inputs:
        grad_outputs.append(input.grad.clone())
        input.grad.zero_()
    return grad_outputs


class GCNConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_idx, edge_weight):
        h = self.lin(x)
        out = torch.zeros_like(h)
        out = out.index_add(0, edge_idx[1], h[edge_idx[0]] * edge_weight.unsqueeze(-1))
        return out


class GCN(nn.Module):
    def __init__(self, n_features, n_classes, n_filters=16, dropout=0.5, do_cache_adj_prep=True,
                 add_self_loops=True):
        super().__init__()
        self.do_cache_adj_prep = do_cache_adj_prep
        self.add_self_loops = add_self_loops
        self.dropout = dropout
        self.layers = nn.ModuleList([GCNConv(n_features, n_filters), GCNConv(n_filters, n_classes)])
        self.adj_preped = None

    @staticmethod
    def normalize(edge_idx, n, edge_weight, add_self_loops=True):
        if edge_weight is None:
            edge_weight = torch.ones(edge_idx.shape[1])
        if add_self_loops:
            loop = torch.arange(n).unsqueeze(0).repeat(2, 1)
            edge_idx = torch.cat([edge_idx, loop], dim=1)
            edge_weight = torch.cat([edge_weight, torch.ones(n)])
        deg = torch.zeros(n).index_add(0, edge_idx[1], edge_weight)
        deg_inv_sqrt = deg.pow(-0.5)
        edge_weight = deg_inv_sqrt[edge_idx[0]] * edge_weight * deg_inv_sqrt[edge_idx[1]]
        return edge_idx, edge_weight

    def _preprocess_adjacency_matrix(self, x, edge_idx, edge_weight):
        return GCN.normalize(edge_idx, x.shape[0], edge_weight, self.add_self_loops)

    def _cache_if_option_is_set(self, callable: Callable, *inputs):
        if self.training and self.adj_preped is not None:
            return self.adj_preped
        else:
            adj_preped = callable(*inputs)

        if self.training and self.do_cache_adj_prep:
            self.adj_preped = adj_preped  # expect: GG104

        return adj_preped

    def release_cache(self):
        self.adj_preped = None

    def forward(self, x, edge_idx, edge_weight: Optional[torch.Tensor] = None):
        edge_idx, edge_weight = self._cache_if_option_is_set(self._preprocess_adjacency_matrix,
                                                             x, edge_idx, edge_weight)
        for i, layer in enumerate(self.layers):
            x = layer(x, edge_idx, edge_weight)
            if i < len(self.layers) - 1:
                x = F.dropout(F.relu(x), p=self.dropout, training=self.training)
        return x


def train(model, x, edge_idx, labels, idx_train, max_epochs=20):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    model.train()
    for _ in range(max_epochs):
        optimizer.zero_grad()
        logits = model(x, edge_idx)
        loss = F.cross_entropy(logits[idx_train], labels[idx_train])
        loss.backward()
        optimizer.step()
    model.release_cache()
    return model


class PRBCD:
    def __init__(self, attacked_model, x, edge_idx, labels, idx_attack, epochs=3, lr_factor=0.1):
        self.attacked_model = attacked_model
        self.x, self.edge_idx, self.labels, self.idx_attack = x, edge_idx, labels, idx_attack
        self.epochs = epochs
        self.lr = lr_factor
        n_edges = edge_idx.shape[1]
        self.perturbed_edge_weight = torch.full((n_edges,), 1e-3, requires_grad=True)

    def get_modified_adj(self):
        return self.edge_idx, 1.0 - self.perturbed_edge_weight

    def calculate_loss(self, logits):
        return F.cross_entropy(logits[self.idx_attack], self.labels[self.idx_attack])

    def attack(self):
        # user change from the report: train() instead of eval() to get a train-mode loss
        self.attacked_model.train()
        for p in self.attacked_model.parameters():
            p.requires_grad_(False)
        for epoch in range(self.epochs):
            edge_idx, edge_weight = self.get_modified_adj()
            logits = self.attacked_model(self.x, edge_idx, edge_weight)
            loss = self.calculate_loss(logits)
            gradient = grad_with_checkpoint(loss, self.perturbed_edge_weight)[0]
            with torch.no_grad():
                self.perturbed_edge_weight.add_(self.lr * gradient)
                self.perturbed_edge_weight.clamp_(0.0, 1.0)
            print('attack step', epoch, 'loss %.4f' % loss.item())


def make_graph(n=30, n_features=8, n_classes=3, n_edges=90):
    x = torch.randn(n, n_features)
    src = torch.randint(0, n, (n_edges,))
    dst = torch.randint(0, n, (n_edges,))
    edge_idx = torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])
    labels = torch.randint(0, n_classes, (n,))
    return x, edge_idx, labels


def main():
    x, edge_idx, labels = make_graph()
    idx_train = torch.arange(0, 20)
    idx_attack = torch.arange(20, 30)
    model = train(GCN(x.shape[1], 3), x, edge_idx, labels, idx_train)
    PRBCD(model, x, edge_idx, labels, idx_attack).attack()


if __name__ == "__main__":
    main()
