# corpus: STSGCN traffic forecaster; PositionEmbedding adds its embeddings in place to the layer input, which is the ReLU output of the first embedding layer, so backward finds ReLU's saved output modified
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/LibCity/Bigscity-LibCity/issues/303
import torch
import torch.nn as nn


class PositionEmbedding(nn.Module):
    def __init__(self, input_length, num_of_vertices, embedding_size):
        super().__init__()
        self.temporal_emb = nn.Parameter(torch.randn(1, input_length, 1, embedding_size) * 0.1)
        self.spatial_emb = nn.Parameter(torch.randn(1, 1, num_of_vertices, embedding_size) * 0.1)

    def forward(self, data):
        data += self.temporal_emb  # expect: GG107
        data += self.spatial_emb  # also: GG107
        return data


class GcnOperation(nn.Module):
    def __init__(self, num_of_filter, num_of_features):
        super().__init__()
        self.num_of_filter = num_of_filter
        self.layer = nn.Linear(num_of_features, 2 * num_of_filter)

    def forward(self, data, adj):
        data = self.layer(torch.matmul(adj, data))
        lhs, rhs = data.split(self.num_of_filter, -1)
        return lhs * torch.sigmoid(rhs)


class Stsgcm(nn.Module):
    def __init__(self, filters, num_of_features, num_of_vertices):
        super().__init__()
        self.num_of_vertices = num_of_vertices
        self.layers = nn.ModuleList()
        for f in filters:
            self.layers.append(GcnOperation(f, num_of_features))
            num_of_features = f

    def forward(self, data, adj):
        need_concat = []
        for layer in self.layers:
            data = layer(data, adj)
            need_concat.append(torch.transpose(data, 1, 0))
        n = self.num_of_vertices
        need_concat = [torch.unsqueeze(i[n:2 * n], dim=0) for i in need_concat]
        return torch.max(torch.cat(need_concat, dim=0), dim=0)[0]


class STSGCL(nn.Module):
    def __init__(self, t, num_of_vertices, num_of_features, filters):
        super().__init__()
        self.T, self.num_of_vertices, self.num_of_features = t, num_of_vertices, num_of_features
        self.position_embedding = PositionEmbedding(t, num_of_vertices, num_of_features)
        self.gcms = nn.ModuleList(Stsgcm(filters, num_of_features, num_of_vertices) for _ in range(t - 2))

    def forward(self, data, adj):
        data = self.position_embedding(data)
        need_concat = []
        for i in range(self.T - 2):
            t = data[:, i:i + 3].reshape(-1, 3 * self.num_of_vertices, self.num_of_features)
            t = torch.transpose(self.gcms[i](t, adj), 0, 1)
            need_concat.append(torch.unsqueeze(t, dim=1))
        return torch.cat(need_concat, dim=1)


class STSGCN(nn.Module):
    def __init__(self, num_nodes, feature_dim, input_window, embedding=4, filter_list=((4, 4), (4, 4))):
        super().__init__()
        a = (torch.rand(num_nodes, num_nodes) > 0.5).float()
        adj = torch.block_diag(a, a, a) + torch.eye(3 * num_nodes)
        self.register_buffer("adj", adj / adj.sum(1, keepdim=True))
        self.first_layer_embedding = nn.Linear(feature_dim, embedding)
        self.stsgcl_layers = nn.ModuleList()
        length, feats = input_window, embedding
        for filters in filter_list:
            self.stsgcl_layers.append(STSGCL(length, num_nodes, feats, list(filters)))
            length, feats = length - 2, filters[-1]
        self.output = nn.Linear(length * feats, 1)

    def forward(self, batch):
        data = torch.relu(self.first_layer_embedding(batch["X"]))  # also: GG107
        for stsgcl_layer in self.stsgcl_layers:
            data = stsgcl_layer(data, self.adj)  # also: GG107
        b, t, n, c = data.shape
        return self.output(data.transpose(1, 2).reshape(b, n, t * c)).unsqueeze(1)


def main():
    torch.manual_seed(0)
    model = STSGCN(num_nodes=3, feature_dim=2, input_window=5)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.SmoothL1Loss()
    for step in range(2):
        batch = {"X": torch.randn(2, 5, 3, 2), "y": torch.randn(2, 1, 3, 1)}
        optimizer.zero_grad()
        loss = criterion(model(batch), batch["y"])
        loss.backward()  # also: GG107
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
