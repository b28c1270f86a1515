# corpus: knowledge-graph scorer reads entity.weight for all-entity scores, then looks up an nn.Embedding(max_norm=...) which renormalises the weight in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pytorch/pytorch/issues/26596
import torch
import torch.nn as nn


class BilinearKGScorer(nn.Module):
    def __init__(self, n_entities, n_relations, dim):
        super().__init__()
        self.entity = nn.Embedding(n_entities, dim, max_norm=1.0)  # also: GG107
        self.relation = nn.Embedding(n_relations, dim)
        self.W = nn.Parameter(torch.randn(dim, dim) * 0.1)

    def forward(self, heads, rels):
        all_tails = self.entity.weight @ self.W.t()
        h = self.entity(heads) * self.relation(rels)  # expect: GG107
        return h @ all_tails.t()


def train_epoch(model, optimizer, triples):
    heads, rels, tails = triples.unbind(-1)
    optimizer.zero_grad()
    scores = model(heads, rels)
    loss = nn.functional.cross_entropy(scores, tails)
    loss.backward()  # also: GG107
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = BilinearKGScorer(n_entities=12, n_relations=3, dim=5)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    triples = torch.stack([torch.randint(0, 12, (8,)), torch.randint(0, 3, (8,)), torch.randint(0, 12, (8,))], dim=-1)
    for _ in range(2):
        train_epoch(model, optimizer, triples)


if __name__ == "__main__":
    main()
