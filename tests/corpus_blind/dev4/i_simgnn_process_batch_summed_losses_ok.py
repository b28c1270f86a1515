# corpus: SimGNN trainer: process_batch sums the per-graph-pair MSE losses into one tensor and backpropagates it once (its retain_graph=True is merely unnecessary: nothing is carried to the next batch), logging losses.item() (correct)
# source: https://github.com/benedekrozemberczki/SimGNN/issues/41
import random
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class SimGNNArgs:
    number_of_labels: int = 5
    filters_1: int = 16
    filters_2: int = 8
    filters_3: int = 8
    tensor_neurons: int = 8
    bottle_neck_neurons: int = 8
    batch_size: int = 4
    epochs: int = 2
    learning_rate: float = 0.01
    weight_decay: float = 5e-4


class DenseGCNConv(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim)

    def forward(self, x, adj):
        adj = adj + torch.eye(adj.shape[0])
        deg_inv_sqrt = adj.sum(1).pow(-0.5)
        norm_adj = deg_inv_sqrt.unsqueeze(1) * adj * deg_inv_sqrt.unsqueeze(0)
        return norm_adj @ self.lin(x)


class AttentionModule(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight_matrix = nn.Parameter(torch.empty(dim, dim))
        nn.init.xavier_uniform_(self.weight_matrix)

    def forward(self, embedding):
        global_context = torch.tanh(torch.mean(embedding @ self.weight_matrix, dim=0))
        sigmoid_scores = torch.sigmoid(embedding @ global_context.view(-1, 1))
        return (embedding.t() @ sigmoid_scores)


class TensorNetworkModule(nn.Module):
    def __init__(self, dim, k):
        super().__init__()
        self.weight_matrix = nn.Parameter(torch.empty(dim, dim, k))
        self.weight_matrix_block = nn.Parameter(torch.empty(k, 2 * dim))
        self.bias = nn.Parameter(torch.zeros(k, 1))
        nn.init.xavier_uniform_(self.weight_matrix)
        nn.init.xavier_uniform_(self.weight_matrix_block)

    def forward(self, e1, e2):
        dim = e1.shape[0]
        scoring = (e1.t() @ self.weight_matrix.view(dim, -1)).view(dim, -1)
        scoring = scoring.t() @ e2
        block_scoring = self.weight_matrix_block @ torch.cat((e1, e2))
        return F.relu(scoring + block_scoring + self.bias)


class SimGNN(nn.Module):
    def __init__(self, args: SimGNNArgs):
        super().__init__()
        self.convolution_1 = DenseGCNConv(args.number_of_labels, args.filters_1)
        self.convolution_2 = DenseGCNConv(args.filters_1, args.filters_2)
        self.convolution_3 = DenseGCNConv(args.filters_2, args.filters_3)
        self.attention = AttentionModule(args.filters_3)
        self.tensor_network = TensorNetworkModule(args.filters_3, args.tensor_neurons)
        self.fully_connected_first = nn.Linear(args.tensor_neurons, args.bottle_neck_neurons)
        self.scoring_layer = nn.Linear(args.bottle_neck_neurons, 1)

    def convolutional_pass(self, adj, features):
        features = F.relu(self.convolution_1(features, adj))
        features = F.relu(self.convolution_2(features, adj))
        return self.convolution_3(features, adj)

    def forward(self, data):
        abstract_1 = self.convolutional_pass(data["adj_1"], data["features_1"])
        abstract_2 = self.convolutional_pass(data["adj_2"], data["features_2"])
        pooled_1 = self.attention(abstract_1)
        pooled_2 = self.attention(abstract_2)
        scores = self.tensor_network(pooled_1, pooled_2).t()
        scores = F.relu(self.fully_connected_first(scores))
        return torch.sigmoid(self.scoring_layer(scores))


def random_graph(num_nodes, num_labels):
    adj = (torch.rand(num_nodes, num_nodes) < 0.4).float()
    adj = ((adj + adj.t()) > 0).float().fill_diagonal_(0)
    labels = torch.randint(0, num_labels, (num_nodes,))
    return adj, F.one_hot(labels, num_labels).float()


class SimGNNTrainer:
    def __init__(self, args: SimGNNArgs, training_graphs):
        self.args = args
        self.training_graphs = training_graphs
        self.model = SimGNN(args)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.learning_rate,
                                          weight_decay=args.weight_decay)

    def create_batches(self):
        random.shuffle(self.training_graphs)
        return [self.training_graphs[i:i + self.args.batch_size]
                for i in range(0, len(self.training_graphs), self.args.batch_size)]

    def process_batch(self, batch):
        self.optimizer.zero_grad()
        losses = 0
        for data in batch:
            prediction = self.model(data)
            losses = losses + F.mse_loss(data["target"], prediction[0])
        losses.backward(retain_graph=True)
        self.optimizer.step()
        return losses.item()

    def fit(self):
        self.model.train()
        for epoch in range(self.args.epochs):
            loss_sum, main_index = 0.0, 0
            for batch in self.create_batches():
                loss_score = self.process_batch(batch)
                main_index += len(batch)
                loss_sum += loss_score * len(batch)
            print(f"Epoch {epoch}: loss {loss_sum / main_index:.4f}")


def make_pairs(args: SimGNNArgs, n_pairs=8):
    pairs = []
    for _ in range(n_pairs):
        adj_1, f_1 = random_graph(5, args.number_of_labels)
        adj_2, f_2 = random_graph(6, args.number_of_labels)
        pairs.append({"adj_1": adj_1, "features_1": f_1, "adj_2": adj_2, "features_2": f_2,
                      "target": torch.rand(1)})
    return pairs


def main():
    torch.manual_seed(0)
    random.seed(0)
    args = SimGNNArgs()
    SimGNNTrainer(args, make_pairs(args)).fit()


if __name__ == "__main__":
    main()
