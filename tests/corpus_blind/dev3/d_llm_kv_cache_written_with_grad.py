# corpus: llama-style Attention keeps cache_k/cache_v tensors on the module and writes each step's keys/values into them with grad while fine-tuning; the next backward walks into the previous step's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/meta-llama/llama/pull/304
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    dim: int = 16
    n_layers: int = 2
    n_heads: int = 2
    vocab_size: int = 32
    max_batch_size: int = 4
    max_seq_len: int = 12


class Attention(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.n_heads = args.n_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.dim, bias=False)
        self.wk = nn.Linear(args.dim, args.dim, bias=False)
        self.wv = nn.Linear(args.dim, args.dim, bias=False)
        self.wo = nn.Linear(args.dim, args.dim, bias=False)
        shape = (args.max_batch_size, args.max_seq_len, self.n_heads, self.head_dim)
        self.cache_k = torch.zeros(shape)
        self.cache_v = torch.zeros(shape)

    def forward(self, x, start_pos, mask):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_heads, self.head_dim)

        self.cache_k = self.cache_k.to(xq)
        self.cache_v = self.cache_v.to(xq)
        self.cache_k[:bsz, start_pos:start_pos + seqlen] = xk  # expect: GG104
        self.cache_v[:bsz, start_pos:start_pos + seqlen] = xv  # also: GG104
        keys = self.cache_k[:bsz, :start_pos + seqlen]
        values = self.cache_v[:bsz, :start_pos + seqlen]

        xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values).transpose(1, 2).reshape(bsz, seqlen, -1)
        return self.wo(output)


class TransformerBlock(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.attention = Attention(args)
        self.feed_forward = nn.Sequential(nn.Linear(args.dim, 4 * args.dim), nn.SiLU(), nn.Linear(4 * args.dim, args.dim))
        self.attention_norm = nn.LayerNorm(args.dim)
        self.ffn_norm = nn.LayerNorm(args.dim)

    def forward(self, x, start_pos, mask):
        h = x + self.attention(self.attention_norm(x), start_pos, mask)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.layers = nn.ModuleList(TransformerBlock(params) for _ in range(params.n_layers))
        self.norm = nn.LayerNorm(params.dim)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)

    def forward(self, tokens, start_pos=0):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        mask = None
        if seqlen > 1:
            mask = torch.full((1, 1, seqlen, seqlen), float("-inf")).triu(start_pos + 1)
        for layer in self.layers:
            h = layer(h, start_pos, mask)
        return self.output(self.norm(h)).float()


def train(model, optimizer, steps=3, bsz=2, seqlen=8):
    model.train()
    for step in range(steps):
        tokens = torch.randint(0, 32, (bsz, seqlen + 1))
        logits = model(tokens[:, :-1], start_pos=0)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()  # also: GG104
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Transformer(ModelArgs())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    train(model, optimizer)
