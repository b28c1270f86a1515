# corpus: an attention layer keeps a key cache on the module and writes each step's keys into a slice of it; the rest of the cache still holds the previous step's graph, so the second step's backward runs into freed buffers
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn


class CachedAttention(nn.Module):
    def __init__(self, dim, max_len):
        super().__init__()
        self.wk = nn.Linear(dim, dim)
        self.cache = torch.zeros(2, max_len, dim)

    def forward(self, x):
        n = x.shape[1]
        self.cache[:, :n] = self.wk(x)  # expect: GG104
        keys = self.cache[:, :n]
        return (x @ keys.transpose(1, 2)).softmax(-1) @ keys


torch.manual_seed(0)
attn = CachedAttention(4, 6)
optimizer = torch.optim.SGD(attn.parameters(), lr=0.1)
for step in range(2):
    loss = attn(torch.randn(2, 3, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
