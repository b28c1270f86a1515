# corpus: Group-based fraud detection GNN that, following the maintainer's fix, uses a torch.where ReLU (which saves no output) so the in-place index write x[edge_u_id] = x[edge_u_id] + h[i] no longer clobbers a saved tensor.
# source: https://github.com/yujianke100/GFDN/issues/4
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Linear


def custom_relu(x):
    return torch.where(x > 0, x, torch.tensor(0.0))


class GCN_NET(nn.Module):
    """Dense stand-in for the torch_geometric GCNConv + ReLU block."""

    def __init__(self, in_feature, out_feature):
        super(GCN_NET, self).__init__()
        self.lin = Linear(in_feature, out_feature)

    def forward(self, x, adj, active=True):
        x = adj @ self.lin(x)
        if active:
            x = custom_relu(x)
        return x


class AE(nn.Module):
    def __init__(self, n_enc, hidden, n_input, n_z):
        super(AE, self).__init__()
        self.enc_in = Linear(n_input, n_enc)
        self.hidden_enc = nn.ModuleList([Linear(n_enc, n_enc) for _ in range(hidden)])
        self.z_layer = Linear(n_enc, n_z)
        self.dec_in = Linear(n_z, n_enc)
        self.x_bar_layer = Linear(n_enc, n_input)

    def forward(self, x):
        enc_result = [F.relu(self.enc_in(x))]
        for layer in self.hidden_enc:
            enc_result.append(F.relu(layer(enc_result[-1])))
        z = self.z_layer(enc_result[-1])
        x_bar = self.x_bar_layer(F.relu(self.dec_in(z)))
        return x_bar, enc_result, z


class GNN(nn.Module):
    def __init__(self, n_input, n_enc, hidden, n_z, n_clusters):
        super(GNN, self).__init__()
        self.ae = AE(n_enc, hidden, n_input, n_z)
        self.gnn_in = GCN_NET(n_input, n_enc)
        self.hidden_gnn = nn.ModuleList([GCN_NET(n_enc, n_enc) for _ in range(hidden)])
        self.gnn_nz = GCN_NET(n_enc, n_z)
        self.gnn_cluster = GCN_NET(n_z, n_clusters)

    def forward(self, x, edge_u_x, edge_u_id, adj):
        x_bar, h, z = self.ae(edge_u_x)
        x = self.gnn_in(x, adj)
        for i, layer in enumerate(self.hidden_gnn):
            x[edge_u_id] = x[edge_u_id] + h[i]
            x = layer(x, adj)
        x = self.gnn_nz(x, adj)
        x = self.gnn_cluster(x, adj, active=False)
        return torch.sigmoid(x[edge_u_id]), x_bar


def make_graph(n_nodes=10, n_feat=6):
    a = (torch.rand(n_nodes, n_nodes) > 0.6).float()
    a = ((a + a.T + torch.eye(n_nodes)) > 0).float()
    deg = a.sum(1)
    adj = a / deg.sqrt()[:, None] / deg.sqrt()[None, :]
    return torch.rand(n_nodes, n_feat), adj


def train(model, optimizer, x, adj, edge_u_id, labels):
    model.train()
    optimizer.zero_grad()
    edge_u_x = x[edge_u_id]
    pred, x_bar = model(x, edge_u_x, edge_u_id, adj)
    loss = F.binary_cross_entropy(pred[:, 0], labels) + F.mse_loss(x_bar, edge_u_x)
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    x, adj = make_graph()
    edge_u_id = torch.tensor([0, 2, 3, 7])
    labels = torch.tensor([0.0, 1.0, 0.0, 1.0])
    model = GNN(n_input=6, n_enc=8, hidden=1, n_z=4, n_clusters=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    total_loss = 0
    for epoch in range(2):
        total_loss += train(model, optimizer, x, adj, edge_u_id, labels)
    ok = all(p.grad is not None for p in model.parameters())
    assert ok
    print("mean loss", round(total_loss / 2, 4), "grads reached params:", ok)


if __name__ == "__main__":
    main()
