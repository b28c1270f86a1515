# corpus: small decoder-only LM trained with teacher forcing (no cache), then decoded with beam search that writes keys/values into preallocated caches in place with index_copy_ under torch.inference_mode (correct)
# source: https://github.com/pytorch-tpu/llama/pull/59
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, n_heads, max_batch, max_seq):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, dim // n_heads
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.register_buffer("cache_k", torch.zeros(max_batch, max_seq, n_heads, self.head_dim), persistent=False)
        self.register_buffer("cache_v", torch.zeros(max_batch, max_seq, n_heads, self.head_dim), persistent=False)

    def forward(self, x, input_indexes=None, use_cache=False):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        if use_cache:
            self.cache_k[:bsz].index_copy_(1, input_indexes, xk)
            self.cache_v[:bsz].index_copy_(1, input_indexes, xv)
            end = int(input_indexes[-1]) + 1
            keys, values = self.cache_k[:bsz, :end], self.cache_v[:bsz, :end]
            start = int(input_indexes[0])
        else:
            keys, values, start = xk, xv, 0
        q, k, v = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        q_pos = torch.arange(start, start + seqlen).unsqueeze(-1)
        k_pos = torch.arange(k.shape[2]).unsqueeze(0)
        scores = scores.masked_fill(k_pos > q_pos, float("-inf"))
        out = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(bsz, seqlen, -1)
        return self.wo(out)

    def reorder_cache(self, beam_idx):
        self.cache_k[: len(beam_idx)] = self.cache_k[beam_idx]
        self.cache_v[: len(beam_idx)] = self.cache_v[beam_idx]


class Block(nn.Module):
    def __init__(self, dim, n_heads, max_batch, max_seq):
        super().__init__()
        self.attn = Attention(dim, n_heads, max_batch, max_seq)
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, input_indexes=None, use_cache=False):
        x = x + self.attn(self.ln1(x), input_indexes, use_cache)
        return x + self.mlp(self.ln2(x))


class Transformer(nn.Module):
    def __init__(self, vocab, dim=32, n_heads=4, n_layers=2, max_batch=8, max_seq=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_seq, dim)
        self.layers = nn.ModuleList(Block(dim, n_heads, max_batch, max_seq) for _ in range(n_layers))
        self.norm = nn.LayerNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens, input_indexes=None, use_cache=False):
        if input_indexes is None:
            input_indexes = torch.arange(tokens.shape[1])
        h = self.tok(tokens) + self.pos(input_indexes)
        for layer in self.layers:
            h = layer(h, input_indexes, use_cache)
        return self.output(self.norm(h))

    def reorder_cache(self, beam_idx):
        for layer in self.layers:
            layer.attn.reorder_cache(beam_idx)


def train(model, data, steps, lr):
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    for step in range(steps):
        logits = model(data[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), data[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.inference_mode()
def beam_search(model, prompt, beam_size, max_new_tokens):
    model.eval()
    tokens = prompt.repeat(beam_size, 1)
    logits = model(tokens, torch.arange(tokens.shape[1]), use_cache=True)[:, -1]
    scores = torch.zeros(beam_size)
    scores[1:] = float("-inf")
    for i in range(max_new_tokens):
        log_probs = F.log_softmax(logits, dim=-1) + scores.unsqueeze(-1)
        top_scores, flat_idx = log_probs.view(-1).topk(beam_size)
        beam_idx, next_tok = flat_idx // logits.shape[-1], flat_idx % logits.shape[-1]
        model.reorder_cache(beam_idx)
        tokens = torch.cat([tokens[beam_idx], next_tok.unsqueeze(-1)], dim=1)
        scores = top_scores
        pos = torch.tensor([tokens.shape[1] - 1])
        logits = model(next_tok.unsqueeze(-1), pos, use_cache=True)[:, -1]
    return tokens[scores.argmax()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", type=int, default=20)
    parser.add_argument("--beam-size", type=int, default=4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = Transformer(args.vocab)
    data = torch.randint(0, args.vocab, (8, 16))
    print("train loss", train(model, data, steps=5, lr=1e-3))
    print(beam_search(model, data[:1, :5], args.beam_size, max_new_tokens=6).tolist())


if __name__ == "__main__":
    main()
