# corpus: Spatio-temporal GCN traffic forecaster applies the graph convolution to every (batch, time) slice of the temporal-conv output and writes the result back into the same tensor, overwriting values that earlier slices' graph convolutions saved for backward.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/57
import torch
import torch.nn as nn
import torch.nn.functional as F


class TemporalConv(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3):
        super(TemporalConv, self).__init__()
        self.conv_1 = nn.Conv2d(in_channels, out_channels, (1, kernel_size))
        self.conv_2 = nn.Conv2d(in_channels, out_channels, (1, kernel_size))
        self.conv_3 = nn.Conv2d(in_channels, out_channels, (1, kernel_size))

    def forward(self, X):
        X = X.permute(0, 3, 2, 1)
        P = self.conv_1(X)
        Q = torch.sigmoid(self.conv_2(X))
        PQ = P * Q
        H = F.relu(PQ + self.conv_3(X))
        H = H.permute(0, 3, 2, 1)
        return H


class GraphConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(GraphConv, self).__init__()
        self.lin = nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_index, edge_weight):
        num_nodes = x.size(0)
        adj = torch.zeros(num_nodes, num_nodes)
        adj[edge_index[0], edge_index[1]] = edge_weight
        deg = adj.sum(1).clamp(min=1.0)
        h = self.lin(x)
        return (adj / deg.unsqueeze(1)) @ h


class STConv(nn.Module):
    def __init__(self, num_nodes, in_channels, hidden_channels, out_channels, kernel_size):
        super(STConv, self).__init__()
        self._temporal_conv1 = TemporalConv(in_channels, hidden_channels, kernel_size)
        self._graph_conv = GraphConv(hidden_channels, hidden_channels)
        self._temporal_conv2 = TemporalConv(hidden_channels, out_channels, kernel_size)
        self._batch_norm = nn.BatchNorm2d(num_nodes)

    def forward(self, X, edge_index, edge_weight=None):
        T = self._temporal_conv1(X)
        for b in range(T.size(0)):
            for t in range(T.size(1)):
                T[b][t] = self._graph_conv(T[b][t], edge_index, edge_weight)  # expect: GG107
        T = F.relu(T)
        T = self._temporal_conv2(T)
        T = T.permute(0, 2, 1, 3)
        T = self._batch_norm(T)
        T = T.permute(0, 2, 1, 3)
        return T


class STGCN(nn.Module):
    def __init__(self, num_nodes, in_channels, hidden, horizon):
        super(STGCN, self).__init__()
        self.recurrent1 = STConv(num_nodes, in_channels, hidden, hidden, kernel_size=2)
        self.recurrent2 = STConv(num_nodes, hidden, hidden, hidden, kernel_size=2)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x, edge_index, edge_weight):
        h1 = self.recurrent1(x, edge_index, edge_weight)
        h2 = self.recurrent2(h1, edge_index, edge_weight)
        return self.head(h2[:, -1])


def make_windows(n, batch, seq_len, num_nodes, features, horizon):
    return [(torch.randn(batch, seq_len, num_nodes, features), torch.randn(batch, num_nodes, horizon))
            for _ in range(n)]


def main():
    torch.manual_seed(0)
    num_nodes, features, horizon = 5, 2, 3
    edge_index = torch.tensor([[0, 1, 2, 3, 4, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 0, 1, 2, 3, 4]])
    edge_weight = torch.rand(edge_index.size(1))
    model = STGCN(num_nodes, features, hidden=8, horizon=horizon)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    train_windows = make_windows(2, batch=2, seq_len=6, num_nodes=num_nodes, features=features, horizon=horizon)
    model.train()
    for epoch in range(2):
        cost = 0.0
        for x, y in train_windows:
            y_hat = model(x, edge_index, edge_weight)
            loss = torch.mean((y_hat - y) ** 2)
            loss.backward()  # also: GG107
            optimizer.step()
            optimizer.zero_grad()
            cost += loss.item()
        print("epoch", epoch, "MSE: {:.4f}".format(cost / len(train_windows)))


if __name__ == "__main__":
    main()
