# corpus: hand-written MessagePassing layer following the PyG "create_gnn" recipe, used with max aggregation; step 6 adds the bias in place to the aggregated output that scatter-amax saved for its backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pyg-team/pytorch_geometric/issues/8953
import torch
import torch.nn as nn
import torch.nn.functional as F


def add_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def degree(index, num_nodes, dtype=torch.float):
    return torch.zeros(num_nodes, dtype=dtype).index_add_(0, index, torch.ones(index.numel(), dtype=dtype))


class MessagePassing(nn.Module):
    def __init__(self, aggr="add"):
        super().__init__()
        self.aggr = aggr

    def propagate(self, edge_index, x, norm):
        row, col = edge_index
        msg = self.message(x[row], norm)
        return self.aggregate(msg, col, x.size(0))

    def message(self, x_j, norm):
        return norm.view(-1, 1) * x_j

    def aggregate(self, msg, index, num_nodes):
        out = msg.new_zeros(num_nodes, msg.size(1))
        idx = index.view(-1, 1).expand_as(msg)
        if self.aggr == "add":
            return out.scatter_add(0, idx, msg)
        return out.scatter_reduce(0, idx, msg, reduce="amax", include_self=False)


class GCNConv(MessagePassing):
    def __init__(self, in_channels, out_channels, aggr="add"):
        super().__init__(aggr=aggr)
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.empty(out_channels))
        self.reset_parameters()

    def reset_parameters(self):
        self.lin.reset_parameters()
        self.bias.data.zero_()

    def forward(self, x, edge_index):
        # Step 1: Add self-loops to the adjacency matrix.
        edge_index = add_self_loops(edge_index, num_nodes=x.size(0))
        # Step 2: Linearly transform node feature matrix.
        x = self.lin(x)
        # Step 3: Compute normalization.
        row, col = edge_index
        deg = degree(col, x.size(0), dtype=x.dtype)
        deg_inv_sqrt = deg.pow(-0.5)
        deg_inv_sqrt[deg_inv_sqrt == float("inf")] = 0
        norm = deg_inv_sqrt[row] * deg_inv_sqrt[col]
        # Step 4-5: Start propagating messages.
        out = self.propagate(edge_index, x=x, norm=norm)
        # Step 6: Apply a final bias vector.
        out += self.bias  # expect: GG107
        return out


class Net(nn.Module):
    def __init__(self, num_features, hidden, num_classes):
        super().__init__()
        self.conv1 = GCNConv(num_features, hidden, aggr="max")
        self.conv2 = GCNConv(hidden, num_classes, aggr="add")

    def forward(self, x, edge_index):
        x = F.relu(self.conv1(x, edge_index))
        x = F.dropout(x, p=0.5, training=self.training)
        return self.conv2(x, edge_index)


def train(model, optimizer, data):
    model.train()
    optimizer.zero_grad()
    out = model(data["x"], data["edge_index"])
    loss = F.cross_entropy(out[data["train_mask"]], data["y"][data["train_mask"]])
    loss.backward()  # also: GG107
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    num_nodes = 30
    data = {
        "x": torch.randn(num_nodes, 8),
        "edge_index": torch.randint(0, num_nodes, (2, 90)),
        "y": torch.randint(0, 3, (num_nodes,)),
        "train_mask": torch.rand(num_nodes) < 0.5,
    }
    model = Net(8, 16, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for epoch in range(1, 6):
        loss = train(model, optimizer, data)
        print(f"Epoch: {epoch:03d}, Loss: {loss:.4f}")
