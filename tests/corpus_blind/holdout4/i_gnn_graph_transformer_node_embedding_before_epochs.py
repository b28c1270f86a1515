# corpus: graph transformer node regression: the node features are embedded by model.embedding_h in a helper called once before the epoch loop, so every epoch's loss reaches back into that single pre-loop graph, which the first backward freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/dmlc/dgl/issues/4285
import math
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class DenseGraph:
    """Minimal stand-in for a DGLGraph: dense adjacency plus node/edge data dicts."""
    adj: torch.Tensor
    ndata: dict = field(default_factory=dict)
    edata: dict = field(default_factory=dict)

    def num_nodes(self):
        return self.adj.shape[0]


class MultiHeadAttentionLayer(nn.Module):
    def __init__(self, in_dim, out_dim, num_heads):
        super().__init__()
        self.out_dim = out_dim
        self.num_heads = num_heads
        self.Q = nn.Linear(in_dim, out_dim * num_heads)
        self.K = nn.Linear(in_dim, out_dim * num_heads)
        self.V = nn.Linear(in_dim, out_dim * num_heads)
        self.proj_e = nn.Linear(in_dim, out_dim * num_heads)

    def forward(self, g, h, e):
        n = g.num_nodes()
        q = self.Q(h).view(n, self.num_heads, self.out_dim)
        k = self.K(h).view(n, self.num_heads, self.out_dim)
        v = self.V(h).view(n, self.num_heads, self.out_dim)
        pe = self.proj_e(e).view(n, n, self.num_heads, self.out_dim)
        score = torch.einsum("ihd,jhd,ijhd->ijh", q, k, pe) / math.sqrt(self.out_dim)
        score = score.masked_fill(g.adj.unsqueeze(-1) == 0, float("-inf"))
        attn = torch.softmax(score, dim=1)
        h_out = torch.einsum("ijh,jhd->ihd", attn, v)
        e_out = pe * attn.unsqueeze(-1)
        return h_out, e_out


class GraphTransformerLayer(nn.Module):
    def __init__(self, in_dim, out_dim, num_heads, dropout=0.0):
        super().__init__()
        self.attention = MultiHeadAttentionLayer(in_dim, out_dim // num_heads, num_heads)
        self.O_h = nn.Linear(out_dim, out_dim)
        self.O_e = nn.Linear(out_dim, out_dim)
        self.layer_norm1_h = nn.LayerNorm(out_dim)
        self.layer_norm1_e = nn.LayerNorm(out_dim)
        self.FFN_h = nn.Sequential(nn.Linear(out_dim, out_dim * 2), nn.ReLU(), nn.Linear(out_dim * 2, out_dim))
        self.layer_norm2_h = nn.LayerNorm(out_dim)
        self.dropout = dropout

    def forward(self, g, h, e):
        h_in1, e_in1 = h, e
        h_attn, e_attn = self.attention(g, h, e)
        h = self.O_h(h_attn.flatten(1))
        e = self.O_e(e_attn.flatten(2))
        h = F.dropout(h, self.dropout, training=self.training)
        h = self.layer_norm1_h(h_in1 + h)
        e = self.layer_norm1_e(e_in1 + e)
        h = self.layer_norm2_h(h + self.FFN_h(h))
        return h, e


class GraphTransformerNet(nn.Module):
    def __init__(self, in_dim, edge_dim, pos_enc_dim, hidden_dim, num_heads, n_layers):
        super().__init__()
        self.embedding_h = nn.Linear(in_dim, hidden_dim)
        self.embedding_e = nn.Linear(edge_dim, hidden_dim)
        self.embedding_lap_pos_enc = nn.Linear(pos_enc_dim, hidden_dim)
        self.layers = nn.ModuleList(
            [GraphTransformerLayer(hidden_dim, hidden_dim, num_heads) for _ in range(n_layers)]
        )
        self.MLP_layer = nn.Sequential(nn.Linear(hidden_dim, hidden_dim // 2), nn.ReLU(), nn.Linear(hidden_dim // 2, 1))

    def forward(self, g, h, e, h_lap_pos_enc):
        h = h + self.embedding_lap_pos_enc(h_lap_pos_enc)
        e = self.embedding_e(e)
        for conv in self.layers:
            h, e = conv(g, h, e)
        return self.MLP_layer(h)


def encode_graph(model, g):
    """Project raw node features into the hidden space once (edge features stay raw)."""
    h = model.embedding_h(g.ndata["feat"])
    e = g.edata["feat"]
    return h, e


def build_graph(num_nodes=6, in_dim=5, edge_dim=3, k=4):
    adj = (torch.rand(num_nodes, num_nodes) < 0.5).float()
    adj = ((adj + adj.t() + torch.eye(num_nodes)) > 0).float()
    g = DenseGraph(adj)
    g.ndata["feat"] = torch.randn(num_nodes, in_dim)
    g.ndata["lap_pos_enc"] = torch.randn(num_nodes, k)
    g.edata["feat"] = torch.randn(num_nodes, num_nodes, edge_dim)
    return g


def main():
    torch.manual_seed(0)
    g = build_graph()
    node_label = torch.randn(g.num_nodes(), 1)
    model = GraphTransformerNet(in_dim=5, edge_dim=3, pos_enc_dim=4, hidden_dim=16, num_heads=2, n_layers=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criteria = nn.MSELoss()

    h, e = encode_graph(model, g)  # expect: GG103
    for n in range(3):
        lp_pe = g.ndata["lap_pos_enc"]
        out = model(g, h, e, lp_pe)  # also: GG103
        loss = criteria(node_label, out)
        print(f"epoch #{n}, loss:{loss.item():.4f}")
        optimizer.zero_grad()
        loss.backward()  # also: GG103
        optimizer.step()


if __name__ == "__main__":
    main()
