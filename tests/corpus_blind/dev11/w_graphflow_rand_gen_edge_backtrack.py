# corpus: GraphDF-style flow samples molecules bond by bond; on a valency violation it masks the rejected bond type in a row of the edge prior parameter in place, with grad recording on
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation
# source: https://github.com/divelab/DIG/issues/164
import torch
import torch.nn as nn

VALENCE = {0: 4, 1: 3, 2: 2, 3: 1}  # C, N, O, F
BOND_ORDER = {0: 1, 1: 2, 2: 3}  # single, double, triple; 3 = no bond


class DisFlowCore(nn.Module):
    """Discrete flow core: a modulo shift of the one-hot latent conditioned on the partial graph."""

    def __init__(self, node_dim, bond_dim):
        super().__init__()
        self.node_shift = nn.Linear(node_dim, node_dim)
        self.edge_shift = nn.Linear(node_dim, bond_dim)

    def reverse(self, node_features, latent, mode):
        context = node_features.sum(dim=1)
        shift = self.node_shift(context) if mode == 0 else self.edge_shift(context)
        return latent + 0.1 * torch.tanh(shift)


class GraphFlowModel(nn.Module):
    def __init__(self, max_size=5, edge_unroll=3, node_dim=4, bond_dim=4):
        super().__init__()
        self.max_size, self.edge_unroll = max_size, edge_unroll
        self.node_dim, self.bond_dim = node_dim, bond_dim
        n_edges = sum(min(i, edge_unroll) for i in range(max_size))
        self.flow_core = DisFlowCore(node_dim, bond_dim)
        self.node_base_log_probs = nn.Parameter(torch.randn(max_size, node_dim), requires_grad=True)
        self.edge_base_log_probs = nn.Parameter(torch.randn(n_edges, bond_dim), requires_grad=True)

    def log_likelihood(self, node_types, edge_types):
        node_ll = torch.log_softmax(self.node_base_log_probs, -1).gather(1, node_types[:, None]).sum()
        edge_ll = torch.log_softmax(self.edge_base_log_probs, -1).gather(1, edge_types[:, None]).sum()
        return node_ll + edge_ll

    def generate(self, temperature=(0.3, 0.3)):
        cur_node_features = torch.zeros(1, self.max_size, self.node_dim)
        atoms, degree, edge_idx, total_resample = [], [], 0, 0
        for i in range(self.max_size):
            start = max(0, i - self.edge_unroll)
            prior_node = torch.distributions.OneHotCategorical(logits=self.node_base_log_probs[i] * temperature[0])
            latent_node = self.flow_core.reverse(cur_node_features, prior_node.sample()[None], mode=0)
            feature_id = torch.argmax(latent_node).item()
            cur_node_features[0, i, feature_id] = 1.0
            atoms.append(feature_id)
            degree.append(0)
            for j in range(min(i, self.edge_unroll)):
                edge_dis = self.edge_base_log_probs[edge_idx]
                valid = False
                while not valid:
                    prior_edge = torch.distributions.OneHotCategorical(logits=edge_dis / temperature[1])
                    latent_id = torch.argmax(prior_edge.sample()).item()
                    latent_edge = self.flow_core.reverse(cur_node_features, prior_edge.sample()[None], mode=1)
                    edge_id = latent_id if latent_edge.argmax().item() == latent_id else 3
                    if edge_id == 3:
                        valid = True
                        continue
                    order = BOND_ORDER[edge_id]
                    a, b = i, j + start
                    valid = degree[a] + order <= VALENCE[atoms[a]] and degree[b] + order <= VALENCE[atoms[b]]
                    if valid:
                        degree[a] += order
                        degree[b] += order
                    else:  # backtrack: forbid this bond type and resample
                        edge_dis[latent_id] = float("-inf")  # expect: GG108
                        total_resample += 1
                edge_idx += 1
        return atoms, degree, total_resample


def main():
    torch.manual_seed(0)
    model = GraphFlowModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(3):
        node_types = torch.randint(0, 4, (model.max_size,))
        edge_types = torch.randint(0, 4, (model.edge_base_log_probs.size(0),))
        loss = -model.log_likelihood(node_types, edge_types)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for sample in range(3):
        atoms, degree, resample = model.generate()
        print("atoms", atoms, "degree", degree, "resampled", resample)


if __name__ == "__main__":
    main()
