# corpus: EvolveGCN-O layer keeps its GRU-evolved weight in self.weight between forward calls; the weight from epoch 1 is fed to the GRU in epoch 2 without detaching, so the epoch-2 backward runs into epoch 1's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/305
import torch
import torch.nn as nn
import torch.nn.functional as F


def gcn_norm(edge_index, num_nodes):
    loops = torch.arange(num_nodes)
    row = torch.cat([edge_index[0], loops])
    col = torch.cat([edge_index[1], loops])
    deg = torch.zeros(num_nodes).index_add_(0, col, torch.ones(col.numel()))
    deg_inv_sqrt = deg.pow(-0.5)
    return row, col, deg_inv_sqrt[row] * deg_inv_sqrt[col]


class GCNConv_Fixed_W(nn.Module):
    """GCN propagation whose weight matrix is supplied by the caller (not trainable here)."""

    def forward(self, W, x, edge_index):
        row, col, norm = gcn_norm(edge_index, x.size(0))
        x = torch.matmul(x, W)
        messages = norm.view(-1, 1) * x[row]
        return torch.zeros_like(x).index_add(0, col, messages)


class EvolveGCNO(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.in_channels = in_channels
        self.initial_weight = nn.Parameter(torch.empty(1, in_channels, in_channels))
        self.weight = None
        self.recurrent_layer = nn.GRU(input_size=in_channels, hidden_size=in_channels, num_layers=1)
        self.conv_layer = GCNConv_Fixed_W()
        nn.init.xavier_uniform_(self.initial_weight)

    def forward(self, X, edge_index):
        if self.weight is None:
            _, self.weight = self.recurrent_layer(self.initial_weight, self.initial_weight)
        else:
            _, self.weight = self.recurrent_layer(self.weight, self.weight)  # expect: GG104
        return self.conv_layer(self.weight.squeeze(dim=0), X, edge_index)


class RecurrentGCN(nn.Module):
    def __init__(self, node_features):
        super().__init__()
        self.recurrent = EvolveGCNO(node_features)
        self.linear = nn.Linear(node_features, 1)

    def forward(self, x, edge_index):
        h = self.recurrent(x, edge_index)
        h = F.relu(h)
        return self.linear(h)


class Snapshot:
    def __init__(self, x, edge_index, y):
        self.x, self.edge_index, self.y = x, edge_index, y


def make_dataset(num_snapshots=5, num_nodes=20, node_features=4):
    edge_index = torch.randint(0, num_nodes, (2, 60))
    return [Snapshot(torch.randn(num_nodes, node_features), edge_index, torch.randn(num_nodes, 1))
            for _ in range(num_snapshots)]


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    train_dataset = make_dataset()
    model = RecurrentGCN(node_features=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model.train()
    for epoch in range(3):
        cost = 0
        for time, snapshot in enumerate(train_dataset):
            y_hat = model(snapshot.x, snapshot.edge_index)
            cost = cost + torch.mean((y_hat - snapshot.y) ** 2)
        cost = cost / (time + 1)
        cost.backward()  # also: GG104
        optimizer.step()
        optimizer.zero_grad()
        print(f"epoch {epoch} MSE {cost.item():.4f}")


if __name__ == "__main__":
    main()
