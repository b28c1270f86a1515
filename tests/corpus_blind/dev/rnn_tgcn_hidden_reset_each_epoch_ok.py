# corpus: temporal GCN (GConvGRU-like) carries H across snapshots inside an epoch and resets it to None between the epoch loop and the snapshot loop (correct)
# source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/145
import torch
import torch.nn as nn
import torch.nn.functional as F


class DenseGCN(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.lin = nn.Linear(cin, cout)

    def forward(self, x, a_hat):
        return a_hat @ self.lin(x)


class TGCNCell(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.out_channels = out_channels
        self.conv_z = DenseGCN(in_channels + out_channels, out_channels)
        self.conv_r = DenseGCN(in_channels + out_channels, out_channels)
        self.conv_h = DenseGCN(in_channels + out_channels, out_channels)

    def forward(self, X, a_hat, H=None):
        if H is None:
            H = torch.zeros(X.size(0), self.out_channels)
        Z = torch.sigmoid(self.conv_z(torch.cat([X, H], dim=1), a_hat))
        R = torch.sigmoid(self.conv_r(torch.cat([X, H], dim=1), a_hat))
        H_tilde = torch.tanh(self.conv_h(torch.cat([X, H * R], dim=1), a_hat))
        return Z * H + (1 - Z) * H_tilde


class RecurrentGCN(nn.Module):
    def __init__(self, node_features, filters=8):
        super().__init__()
        self.recurrent = TGCNCell(node_features, filters)
        self.linear = nn.Linear(filters, 1)

    def forward(self, x, a_hat, h):
        h = self.recurrent(x, a_hat, h)
        return self.linear(F.relu(h)), h


def make_dataset(T=5, nodes=7, feats=3):
    adj = ((torch.rand(nodes, nodes) > 0.5).float() + torch.eye(nodes)).clamp(max=1)
    a_hat = adj / adj.sum(1, keepdim=True)
    return [(torch.randn(nodes, feats), a_hat, torch.randn(nodes, 1)) for _ in range(T)]


def main():
    torch.manual_seed(0)
    dataset = make_dataset()
    model = RecurrentGCN(node_features=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    hiddens = []
    for epoch in range(3):
        optimizer.zero_grad()
        cost = 0
        h = None
        for time, (x, a_hat, y) in enumerate(dataset):
            y_hat, h = model(x, a_hat, h)
            cost = cost + torch.mean((y_hat - y) ** 2)
        cost = cost / (time + 1)
        cost.backward()
        optimizer.step()
        hiddens.append(h)
    return model, hiddens


if __name__ == "__main__":
    model, hiddens = main()
    assert all(p.grad is not None for p in model.parameters())
    assert len(hiddens) == 3
