# corpus: EvolveGCN-O style layer evolves its GCN weight with a GRU and stores it in self.weight; the next epoch starts from the previous epoch's graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/297
import torch
import torch.nn as nn
import torch.nn.functional as F


def normalize(adj):
    adj = adj + torch.eye(adj.size(0))
    deg = adj.sum(1)
    d = deg.pow(-0.5)
    return d[:, None] * adj * d[None, :]


class EvolveGCNO(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.initial_weight = nn.Parameter(torch.randn(in_channels, in_channels) * 0.1)
        self.recurrent_layer = nn.GRU(input_size=in_channels, hidden_size=in_channels, num_layers=1)
        self.weight = None

    def forward(self, X, A_hat):
        W = self.initial_weight if self.weight is None else self.weight
        _, W_new = self.recurrent_layer(W[None, :, :], W[None, :, :])
        self.weight = W_new.squeeze(0)  # expect: GG104
        return A_hat @ X @ self.weight


class RecurrentGCN(nn.Module):
    def __init__(self, node_features):
        super().__init__()
        self.recurrent = EvolveGCNO(node_features)
        self.linear = nn.Linear(node_features, 1)

    def forward(self, x, A_hat):
        h = F.relu(self.recurrent(x, A_hat))
        return self.linear(h)


def make_signal(num_snapshots=4, nodes=6, feats=4):
    snaps = []
    for _ in range(num_snapshots):
        adj = (torch.rand(nodes, nodes) > 0.6).float()
        adj = ((adj + adj.t()) > 0).float()
        snaps.append((torch.randn(nodes, feats), normalize(adj), torch.randn(nodes, 1)))
    return snaps


def main():
    torch.manual_seed(0)
    dataset = make_signal()
    model = RecurrentGCN(node_features=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model.train()
    for epoch in range(3):
        cost = 0
        for time, (x, a_hat, y) in enumerate(dataset):
            y_hat = model(x, a_hat)
            cost = cost + torch.mean((y_hat - y) ** 2)
        cost = cost / (time + 1)
        cost.backward()  # also: GG104
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
