# corpus: Infini-attention causal LM trained segment by segment with gradient accumulation; the compressive memory (M, z) returned by each segment is fed to the next segment without detach, so the second segment's backward reaches the first segment's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/jlamprou/Infini-Attention/issues/3
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class InfiniAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.o_proj = nn.Linear(d_model, d_model)
        self.beta = nn.Parameter(torch.zeros(1, n_heads, 1, 1))

    def _retrieve_from_memory(self, q, M, z):
        sigma_q = F.elu(q) + 1.0
        num = sigma_q @ M
        den = (sigma_q @ z.unsqueeze(-1)).clamp(min=1e-6)
        return num / den

    def _update_memory(self, k, v, M, z):
        sigma_k = F.elu(k) + 1.0
        M = M + sigma_k.transpose(-2, -1) @ v
        z = z + sigma_k.sum(dim=-2)
        return M, z

    def forward(self, x, M, z):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (y.view(b, t, self.n_heads, self.d_head).transpose(1, 2) for y in (q, k, v))
        a_mem = self._retrieve_from_memory(q, M, z)
        a_dot = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        gate = torch.sigmoid(self.beta)
        attn = gate * a_mem + (1 - gate) * a_dot
        M, z = self._update_memory(k, v, M, z)
        out = self.o_proj(attn.transpose(1, 2).reshape(b, t, d))
        return out, M, z


class InfiniBlock(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = InfiniAttention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x, M, z):
        h, M, z = self.attn(self.ln1(x), M, z)
        x = x + h
        x = x + self.mlp(self.ln2(x))
        return x, M, z


class InfiniLM(nn.Module):
    def __init__(self, vocab, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.embed = nn.Embedding(vocab, d_model)
        self.block = InfiniBlock(d_model, n_heads)
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)

    def init_memory(self, batch_size):
        M = torch.zeros(batch_size, self.n_heads, self.d_head, self.d_head)
        z = torch.full((batch_size, self.n_heads, self.d_head), 1.0 / self.d_head)
        return M, z

    def forward(self, input_ids, M, z):
        x = self.embed(input_ids)
        x, M, z = self.block(x, M, z)
        return self.lm_head(self.ln_f(x)), M, z


def train_epoch(model, optimizer, batches, segment_len, max_grad_norm):
    model.train()
    for step, input_ids in enumerate(batches):
        bsz, seq_len = input_ids.shape
        n_segments = math.ceil((seq_len - 1) / segment_len)
        M, z = model.init_memory(bsz)
        optimizer.zero_grad()
        total = 0.0
        for s in range(n_segments):
            start, end = s * segment_len, min((s + 1) * segment_len, seq_len - 1)
            seg_in = input_ids[:, start:end]
            seg_labels = input_ids[:, start + 1:end + 1]
            logits, M, z = model(seg_in, M, z)  # expect: GG104
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), seg_labels.reshape(-1)) / n_segments
            loss.backward()  # also: GG104
            total += loss.item()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        print("step", step, "loss", round(total, 4))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", type=int, default=50)
    parser.add_argument("--d_model", type=int, default=32)
    parser.add_argument("--n_heads", type=int, default=2)
    parser.add_argument("--segment_len", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = InfiniLM(args.vocab, args.d_model, args.n_heads)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    batches = [torch.randint(0, args.vocab, (2, 25)) for _ in range(2)]
    train_epoch(model, optimizer, batches, args.segment_len, max_grad_norm=1.0)


if __name__ == "__main__":
    main()
