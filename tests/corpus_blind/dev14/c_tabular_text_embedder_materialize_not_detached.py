# corpus: tabular deep-learning pipeline (pytorch-frame shape): a hashing text embedder backed by an nn.Embedding pre-encodes the text column once when the dataset is materialized, without detaching, so the cached feature tensor carries the embedder's graph; the ResNet-style tabular model trains on it and the second optimisation step backpropagates into the already freed embedding graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pyg-team/pytorch-frame/pull/229
from dataclasses import dataclass
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F


class HashTextEmbedder:
    def __init__(self, out_channels=8, num_hash_bins=64):
        self.num_hash_bins = num_hash_bins
        self.embedding = nn.Embedding(num_hash_bins, out_channels)

    def __call__(self, sentences: List[str]) -> torch.Tensor:
        idx = torch.LongTensor([sum(map(ord, s)) % self.num_hash_bins for s in sentences])
        return self.embedding(idx)  # expect: GG103


@dataclass
class TensorFrame:
    numerical: torch.Tensor
    text_embedded: torch.Tensor
    y: torch.Tensor

    def __getitem__(self, idx):
        return TensorFrame(self.numerical[idx], self.text_embedded[idx], self.y[idx])


class TabularDataset:
    def __init__(self, n_rows=64):
        words = ["red", "green", "blue", "cheap", "fast", "slow", "new", "used"]
        self.text = [" ".join(words[(r * k) % len(words)] for k in (1, 3, 5)) for r in range(n_rows)]
        self.numerical = torch.randn(n_rows, 5)
        self.y = torch.randint(0, 2, (n_rows,))
        self.tensor_frame = None

    def materialize(self, text_embedder):
        self.tensor_frame = TensorFrame(self.numerical, text_embedder(self.text), self.y)  # also: GG103
        return self


class ResNetTabular(nn.Module):
    def __init__(self, num_numerical=5, text_dim=8, channels=32, out=2):
        super().__init__()
        self.num_encoder = nn.Linear(num_numerical, channels)
        self.text_encoder = nn.Linear(text_dim, channels)
        self.blocks = nn.ModuleList([nn.Sequential(nn.LayerNorm(channels), nn.Linear(channels, channels), nn.ReLU())
                                     for _ in range(2)])
        self.decoder = nn.Linear(channels, out)

    def forward(self, tf: TensorFrame):
        x = self.num_encoder(tf.numerical) + self.text_encoder(tf.text_embedded)
        for block in self.blocks:
            x = x + block(x)
        return self.decoder(x)


def train(model, tensor_frame, optimizer, batch_size=16):
    model.train()
    loss_accum = total = 0
    for idx in torch.randperm(len(tensor_frame.y)).split(batch_size):
        tf = tensor_frame[idx]
        loss = F.cross_entropy(model(tf), tf.y)
        optimizer.zero_grad()
        loss.backward()  # also: GG103
        optimizer.step()
        loss_accum += float(loss) * len(idx)
        total += len(idx)
    return loss_accum / total


def main():
    torch.manual_seed(0)
    dataset = TabularDataset().materialize(HashTextEmbedder())
    model = ResNetTabular()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, 3):
        print(f"epoch {epoch} train loss {train(model, dataset.tensor_frame, optimizer):.4f}")


if __name__ == "__main__":
    main()
