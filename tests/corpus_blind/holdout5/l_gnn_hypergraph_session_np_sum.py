# corpus: DHCN session-based recommender (hypergraph conv + line-graph conv + self-supervised contrastive loss); HyperConv sums the per-layer item embeddings with np.sum over a list of tensors that require grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/xiaxin1998/DHCN/issues/8
import argparse
import datetime
import math

import numpy as np
import torch
import torch.nn as nn
from scipy.sparse import coo_matrix


class HyperConv(nn.Module):
    def __init__(self, layers, dataset, emb_size=100):
        super().__init__()
        self.emb_size = emb_size
        self.layers = layers
        self.dataset = dataset

    def forward(self, adjacency, embedding):
        values = adjacency.data
        indices = np.vstack((adjacency.row, adjacency.col))
        i = torch.LongTensor(indices)
        v = torch.FloatTensor(values)
        shape = adjacency.shape
        adjacency = torch.sparse_coo_tensor(i, v, torch.Size(shape), check_invariants=True)
        item_embeddings = embedding
        final = [item_embeddings]
        for _ in range(self.layers):
            item_embeddings = torch.sparse.mm(adjacency, item_embeddings)
            final.append(item_embeddings)
        item_embeddings = np.sum(final, 0)  # expect: GG110
        return item_embeddings


class LineConv(nn.Module):
    def __init__(self, layers, batch_size, emb_size=100):
        super().__init__()
        self.emb_size = emb_size
        self.batch_size = batch_size
        self.layers = layers

    def forward(self, item_embedding, D, A, session_item, session_len):
        zeros = torch.zeros(1, self.emb_size)
        item_embedding = torch.cat([zeros, item_embedding], 0)
        seq_h = torch.stack([torch.index_select(item_embedding, 0, session_item[i]) for i in range(len(session_item))])
        session_emb_lgcn = torch.div(torch.sum(seq_h, 1), session_len)
        session = [session_emb_lgcn]
        DA = torch.mm(D, A).float()
        for _ in range(self.layers):
            session_emb_lgcn = torch.mm(DA, session_emb_lgcn)
            session.append(session_emb_lgcn)
        return torch.stack(session).sum(0)


class DHCN(nn.Module):
    def __init__(self, adjacency, n_node, lr, layers, l2, beta, dataset, emb_size=100, batch_size=100):
        super().__init__()
        self.emb_size = emb_size
        self.batch_size = batch_size
        self.n_node = n_node
        self.L2 = l2
        self.lr = lr
        self.layers = layers
        self.beta = beta
        self.adjacency = adjacency
        self.embedding = nn.Embedding(self.n_node, self.emb_size)
        self.HyperGraph = HyperConv(self.layers, dataset, emb_size)
        self.LineGraph = LineConv(self.layers, self.batch_size, emb_size)
        self.w_1 = nn.Parameter(torch.Tensor(self.emb_size, self.emb_size))
        self.loss_function = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.parameters(), lr=self.lr)
        self.init_parameters()

    def init_parameters(self):
        stdv = 1.0 / math.sqrt(self.emb_size)
        for weight in self.parameters():
            weight.data.uniform_(-stdv, stdv)

    def generate_sess_emb(self, item_embedding, session_item, session_len):
        zeros = torch.zeros(1, self.emb_size)
        item_embedding = torch.cat([zeros, item_embedding], 0)
        seq_h = item_embedding[session_item]
        hs = torch.div(torch.sum(seq_h, 1), session_len)
        return torch.tanh(torch.matmul(hs, self.w_1))

    def SSL(self, sess_emb_hgnn, sess_emb_lgcn):
        def row_column_shuffle(embedding):
            corrupted = embedding[torch.randperm(embedding.size()[0])]
            return corrupted[:, torch.randperm(corrupted.size()[1])]

        def score(x1, x2):
            return torch.sum(torch.mul(x1, x2), 1)

        pos = score(sess_emb_hgnn, sess_emb_lgcn)
        neg1 = score(sess_emb_lgcn, row_column_shuffle(sess_emb_hgnn))
        one = torch.ones(neg1.shape[0])
        return torch.sum(-torch.log(1e-8 + torch.sigmoid(pos)) - torch.log(1e-8 + (one - torch.sigmoid(neg1))))

    def forward(self, session_item, session_len, D, A):
        item_embeddings_hg = self.HyperGraph(self.adjacency, self.embedding.weight[1:])
        sess_emb_hgnn = self.generate_sess_emb(item_embeddings_hg, session_item, session_len)
        session_emb_lg = self.LineGraph(self.embedding.weight[1:], D, A, session_item, session_len)
        con_loss = self.SSL(sess_emb_hgnn, session_emb_lg)
        return item_embeddings_hg, sess_emb_hgnn, self.beta * con_loss


class Data:
    def __init__(self, n_sessions, n_items, max_len, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.sessions = torch.randint(1, n_items, (n_sessions, max_len), generator=g)
        self.targets = torch.randint(0, n_items - 1, (n_sessions,), generator=g)

    def generate_batch(self, batch_size):
        n = len(self.sessions)
        return [np.arange(i, min(i + batch_size, n)) for i in range(0, n, batch_size)]

    def get_slice(self, idx):
        session_item = self.sessions[idx]
        session_len = torch.full((len(idx), 1), float(session_item.shape[1]))
        return self.targets[idx], session_len, session_item

    def get_overlap(self, session_item):
        s = [set(row.tolist()) for row in session_item]
        n = len(s)
        A = torch.zeros(n, n)
        for i in range(n):
            for j in range(n):
                A[i, j] = len(s[i] & s[j]) / max(len(s[i] | s[j]), 1)
        D = torch.diag(1.0 / A.sum(1))
        return A, D


def build_item_adjacency(data, n_items):
    rows, cols = [], []
    for sess in data.sessions.tolist():
        for a in sess:
            for b in sess:
                rows.append(a - 1)
                cols.append(b - 1)
    vals = np.ones(len(rows), dtype=np.float32)
    adj = coo_matrix((vals, (rows, cols)), shape=(n_items - 1, n_items - 1))
    deg = np.asarray(adj.sum(1)).reshape(-1)
    adj = coo_matrix((vals / deg[rows], (rows, cols)), shape=adj.shape)
    return adj


def forward(model, i, data):
    tar, session_len, session_item = data.get_slice(i)
    A_hat, D_hat = data.get_overlap(session_item)
    item_emb_hg, sess_emb_hgnn, con_loss = model(session_item, session_len, D_hat, A_hat)
    scores = torch.mm(sess_emb_hgnn, torch.transpose(item_emb_hg, 1, 0))
    return tar, scores, con_loss


def train_test(model, train_data):
    print("start training: ", datetime.datetime.now())
    total_loss = 0.0
    slices = train_data.generate_batch(model.batch_size)
    for i in slices:
        model.zero_grad()
        targets, scores, con_loss = forward(model, i, train_data)
        loss = model.loss_function(scores + 1e-8, targets)
        loss = loss + con_loss
        loss.backward()
        model.optimizer.step()
        total_loss += loss.item()
    print("\tLoss:\t%.3f" % total_loss)
    return total_loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="sample")
    parser.add_argument("--embSize", type=int, default=16)
    parser.add_argument("--batchSize", type=int, default=8)
    parser.add_argument("--layer", type=int, default=2)
    parser.add_argument("--beta", type=float, default=0.01)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--l2", type=float, default=1e-5)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    n_node = 30
    train_data = Data(n_sessions=16, n_items=n_node, max_len=4)
    adjacency = build_item_adjacency(train_data, n_node)
    model = DHCN(adjacency=adjacency, n_node=n_node, lr=opt.lr, l2=opt.l2, beta=opt.beta, layers=opt.layer,
                 emb_size=opt.embSize, batch_size=opt.batchSize, dataset=opt.dataset)
    for epoch in range(1):
        train_test(model, train_data)


if __name__ == "__main__":
    main()
