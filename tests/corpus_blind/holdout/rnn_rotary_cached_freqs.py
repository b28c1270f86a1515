# corpus: rotary embedding with learned frequencies caches the computed freqs tensor on the module; the second training step reuses the cached graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/lucidrains/rotary-embedding-torch/issues/18
import torch
import torch.nn as nn
import torch.nn.functional as F


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, theta=10000, learned_freq=True):
        super().__init__()
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
        self.freqs = nn.Parameter(freqs, requires_grad=learned_freq)
        self.cached_freqs = None

    def forward(self, seq_len, offset=0):
        if self.cached_freqs is not None and (offset + seq_len) <= self.cached_freqs.shape[0]:
            return self.cached_freqs[offset:offset + seq_len]  # also: GG104
        t = torch.arange(offset + seq_len).float()
        freqs = torch.einsum("i,j->ij", t, self.freqs)
        freqs = torch.cat((freqs, freqs), dim=-1)
        self.cached_freqs = freqs  # expect: GG104
        return freqs

    def rotate_queries_or_keys(self, x):
        freqs = self.forward(x.shape[-2])
        return x * freqs.cos() + rotate_half(x) * freqs.sin()


class RoPEBlock(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)
        self.rotary = RotaryEmbedding(dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = self.rotary.rotate_queries_or_keys(q)
        k = self.rotary.rotate_queries_or_keys(k)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(attn)


def train(model, steps=3):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        x = torch.randn(2, 6, 16)
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad()
        loss.backward()  # also: GG104
        opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    train(RoPEBlock())
