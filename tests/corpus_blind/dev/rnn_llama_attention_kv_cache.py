# corpus: LLaMA-style Attention writes xk/xv into self.cache_k/self.cache_v during fine-tuning, so the next batch reads keys that still carry the previous graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/meta-llama/llama-cookbook/issues/247
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    dim: int = 16
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
        self.cache_k = torch.zeros(args.max_batch_size, args.max_seq_len, self.n_heads, self.head_dim)
        self.cache_v = torch.zeros(args.max_batch_size, args.max_seq_len, self.n_heads, self.head_dim)

    def forward(self, x, start_pos, mask):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_heads, self.head_dim)

        self.cache_k = self.cache_k.to(xq)
        self.cache_v = self.cache_v.to(xq)
        self.cache_k[:bsz, start_pos:start_pos + seqlen] = xk  # expect: GG104
        self.cache_v[:bsz, start_pos:start_pos + seqlen] = xv  # also: GG104
        keys = self.cache_k[:bsz, :start_pos + seqlen]  # also: GG104
        values = self.cache_v[:bsz, :start_pos + seqlen]  # also: GG104

        xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        scores = xq @ keys.transpose(2, 3) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores + mask
        out = F.softmax(scores, dim=-1) @ values
        return self.wo(out.transpose(1, 2).reshape(bsz, seqlen, -1))


class TinyLlama(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.tok = nn.Embedding(args.vocab_size, args.dim)
        self.attn = Attention(args)
        self.norm = nn.LayerNorm(args.dim)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)

    def forward(self, tokens, start_pos=0):
        seqlen = tokens.size(1)
        mask = torch.full((seqlen, seqlen), float("-inf")).triu(1)
        h = self.tok(tokens)
        h = h + self.attn(self.norm(h), start_pos, mask)
        return self.output(h)


def finetune(model, batches):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step, tokens in enumerate(batches):
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()  # also: GG104
        opt.step()
        print(step, loss.item())


def main():
    torch.manual_seed(0)
    args = ModelArgs()
    model = TinyLlama(args)
    batches = [torch.randint(0, args.vocab_size, (2, 9)) for _ in range(3)]
    finetune(model, batches)


if __name__ == "__main__":
    main()
