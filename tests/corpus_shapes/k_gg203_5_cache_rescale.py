# corpus: pipeline object caches the tanh features in self.cache across method calls; rescale() halves them through .data before the head uses them, so tanh's backward reads the altered output (silent)
# source: docs/rules/GG203.md (shape: 5)
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeaturePipeline:
    def __init__(self, encoder, head, optimizer, scale=0.5):
        self.encoder = encoder
        self.head = head
        self.optimizer = optimizer
        self.scale = scale
        self.cache = {}

    def encode(self, x):
        self.cache["h"] = torch.tanh(self.encoder(x))

    def rescale(self):
        self.cache["h"].data.mul_(self.scale)  # expect: GG203

    def step(self, x, y):
        self.encode(x)
        self.rescale()
        loss = F.mse_loss(self.head(self.cache["h"]), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    encoder = nn.Linear(4, 8)
    head = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(list(encoder.parameters()) + list(head.parameters()), lr=0.05)
    pipe = FeaturePipeline(encoder, head, optimizer)
    for t in range(3):
        pipe.step(torch.randn(8, 4), torch.randn(8, 1))
    return pipe


if __name__ == "__main__":
    main()
