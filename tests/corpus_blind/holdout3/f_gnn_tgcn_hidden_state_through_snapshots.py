# corpus: T-GCN example passing the previous hidden state from snapshot to snapshot; the cost is summed over one epoch and backpropagated once, and the hidden state is reset to None at the start of every epoch
# source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/pull/209
import torch
import torch.nn as nn
import torch.nn.functional as F


def normalized_adjacency(edge_index, edge_weight, num_nodes):
    A = torch.zeros(num_nodes, num_nodes)
    A[edge_index[0], edge_index[1]] = edge_weight
    A = A + torch.eye(num_nodes)
    d_inv_sqrt = A.sum(1).pow(-0.5)
    return d_inv_sqrt.view(-1, 1) * A * d_inv_sqrt.view(1, -1)


class GCN(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels)

    def forward(self, x, A_hat):
        return A_hat @ self.lin(x)


class TGCN(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.out_channels = out_channels
        self.conv_z = GCN(in_channels, out_channels)
        self.linear_z = nn.Linear(2 * out_channels, out_channels)
        self.conv_r = GCN(in_channels, out_channels)
        self.linear_r = nn.Linear(2 * out_channels, out_channels)
        self.conv_h = GCN(in_channels, out_channels)
        self.linear_h = nn.Linear(2 * out_channels, out_channels)

    def _set_hidden_state(self, X, H):
        if H is None:
            H = torch.zeros(X.shape[0], self.out_channels)
        return H

    def forward(self, X, edge_index, edge_weight, H=None):
        A_hat = normalized_adjacency(edge_index, edge_weight, X.size(0))
        H = self._set_hidden_state(X, H)
        Z = torch.sigmoid(self.linear_z(torch.cat([self.conv_z(X, A_hat), H], dim=1)))
        R = torch.sigmoid(self.linear_r(torch.cat([self.conv_r(X, A_hat), H], dim=1)))
        H_tilde = torch.tanh(self.linear_h(torch.cat([self.conv_h(X, A_hat), H * R], dim=1)))
        return Z * H + (1 - Z) * H_tilde


class RecurrentGCN(nn.Module):
    def __init__(self, node_features):
        super().__init__()
        self.recurrent = TGCN(node_features, 16)
        self.linear = nn.Linear(16, 1)

    def forward(self, x, edge_index, edge_weight, prev_hidden_state):
        h = self.recurrent(x, edge_index, edge_weight, prev_hidden_state)
        y = F.relu(h)
        y = self.linear(y)
        return y, h


def make_signal(num_snapshots, num_nodes=20, node_features=4):
    edge_index = torch.randint(0, num_nodes, (2, 50))
    edge_attr = torch.rand(50)
    return [(torch.randn(num_nodes, node_features), edge_index, edge_attr, torch.randn(num_nodes, 1))
            for _ in range(num_snapshots)]


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    train_dataset, test_dataset = make_signal(6), make_signal(3)
    model = RecurrentGCN(node_features=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model.train()
    for epoch in range(5):
        cost = 0
        hidden_state = None
        for time, (x, edge_index, edge_attr, y) in enumerate(train_dataset):
            y_hat, hidden_state = model(x, edge_index, edge_attr, hidden_state)
            cost = cost + torch.mean((y_hat - y) ** 2)
        cost = cost / (time + 1)
        cost.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    with torch.no_grad():
        cost = 0
        hidden_state = None
        for time, (x, edge_index, edge_attr, y) in enumerate(test_dataset):
            y_hat, hidden_state = model(x, edge_index, edge_attr, hidden_state)
            cost = cost + torch.mean((y_hat - y) ** 2)
        cost = cost / (time + 1)
    print("MSE: {:.4f}".format(cost.item()))
