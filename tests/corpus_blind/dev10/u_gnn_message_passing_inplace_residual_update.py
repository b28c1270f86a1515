# corpus: hand-written message-passing GNN (index_add_ aggregation) whose layers apply the residual node update in place (h += ...) on the ReLU output that autograd saved, so backward fails the version check
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pyg-team/pytorch_geometric/issues/7283
import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graph(num_nodes, num_edges, gen):
    src = torch.randint(0, num_nodes, (num_edges,), generator=gen)
    dst = torch.randint(0, num_nodes, (num_edges,), generator=gen)
    return torch.stack([src, dst])


class EdgeMessageLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.message = nn.Sequential(nn.Linear(2 * dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.update = nn.Linear(dim, dim)

    def forward(self, h, edge_index):
        src, dst = edge_index
        msg = self.message(torch.cat([h[src], h[dst]], dim=-1))
        agg = torch.zeros_like(h).index_add_(0, dst, msg)
        deg = torch.zeros(h.size(0)).index_add_(0, dst, torch.ones(dst.numel())).clamp(min=1)
        h += self.update(agg / deg.unsqueeze(-1))  # expect: GG107
        return h


class GraphRegressor(nn.Module):
    def __init__(self, in_dim, dim, num_layers=2):
        super().__init__()
        self.embed = nn.Linear(in_dim, dim)
        self.layers = nn.ModuleList([EdgeMessageLayer(dim) for _ in range(num_layers)])
        self.readout = nn.Linear(dim, 1)

    def forward(self, x, edge_index):
        h = F.relu(self.embed(x))
        for layer in self.layers:
            h = layer(h, edge_index)
        return self.readout(h.mean(dim=0))


def train(model, graphs, epochs=3):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        total = 0.0
        for x, edge_index, y in graphs:
            optimizer.zero_grad()
            pred = model(x, edge_index)
            loss = F.mse_loss(pred, y)
            loss.backward()  # also: GG107
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: {total / len(graphs):.4f}")


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    graphs = [(torch.randn(10, 5), random_graph(10, 30, gen), torch.randn(1)) for _ in range(4)]
    train(GraphRegressor(5, 16), graphs)


if __name__ == "__main__":
    main()
