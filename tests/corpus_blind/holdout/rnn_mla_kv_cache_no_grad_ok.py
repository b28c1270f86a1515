# corpus: multi-head latent attention keeps a compressed KV cache on the module but writes it under torch.no_grad(), so fine-tuning steps stay independent (correct)
# source: https://github.com/wyf3/llm_related/issues/7
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLA(nn.Module):
    def __init__(self, dim=16, n_heads=2, kv_lora_rank=6, max_batch=4, max_len=16):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.w_dkv = nn.Linear(dim, kv_lora_rank, bias=False)
        self.kv_norm = nn.LayerNorm(kv_lora_rank)
        self.w_uk = nn.Linear(kv_lora_rank, dim, bias=False)
        self.w_uv = nn.Linear(kv_lora_rank, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.kv_cache = torch.zeros(max_batch, max_len, kv_lora_rank)

    def forward(self, x, start_pos=0):
        bsz, seqlen, _ = x.shape
        c_kv = self.kv_norm(self.w_dkv(x))
        if start_pos > 0:
            c_all = torch.cat([self.kv_cache[:bsz, :start_pos], c_kv], dim=1)
        else:
            c_all = c_kv
        with torch.no_grad():
            self.kv_cache[:bsz, start_pos:start_pos + seqlen] = c_kv
        q = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.w_uk(c_all).view(bsz, -1, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.w_uv(c_all).view(bsz, -1, self.n_heads, self.head_dim).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf")).triu(1)
            scores = scores + torch.cat([torch.zeros(seqlen, start_pos), mask], dim=1)
        out = F.softmax(scores, dim=-1) @ v
        return self.wo(out.transpose(1, 2).reshape(bsz, seqlen, -1))


class TinyLM(nn.Module):
    def __init__(self, vocab=24, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.attn = MLA(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens, start_pos=0):
        h = self.emb(tokens)
        return self.head(h + self.attn(h, start_pos))


def train(model, steps=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(steps):
        tokens = torch.randint(0, 24, (2, 8))
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 24), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()


@torch.no_grad()
def generate(model, prompt, n_new=3):
    logits = model(prompt, start_pos=0)
    pos, out = prompt.size(1), [prompt]
    for _ in range(n_new):
        nxt = logits[:, -1:].argmax(-1)
        out.append(nxt)
        logits = model(nxt, start_pos=pos)
        pos += 1
    return torch.cat(out, dim=1)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TinyLM()
    train(model)
    assert all(p.grad is not None for p in model.parameters())
    assert model.attn.kv_cache.grad_fn is None and not model.attn.kv_cache.requires_grad
    print(generate(model, torch.randint(0, 24, (2, 4))).shape)
