# corpus: nanoGPT-style training loop with gradient accumulation over micro-steps, GradScaler/autocast plumbing, gradient clipping after unscale_, and zero_grad(set_to_none=True) only after the optimizer step; the loss is divided by the accumulation count and only .item() is logged; correct.
# source: https://github.com/karpathy/nanoGPT/blob/master/train.py
import math
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F

gradient_accumulation_steps = 4
batch_size = 4
block_size = 16
max_iters = 4
learning_rate = 6e-4
warmup_iters = 2
lr_decay_iters = 4
min_lr = 6e-5
grad_clip = 1.0
eval_interval = 2
device_type = "cpu"
dtype = "float32"


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x, mask):
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size=65, n_embd=32, n_head=4, n_layer=2):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.register_buffer("mask", torch.triu(torch.ones(block_size, block_size, dtype=torch.bool), 1))

    def forward(self, idx, targets=None):
        t = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(t))
        for block in self.h:
            x = block(x, self.mask[:t, :t])
        logits = self.lm_head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


data = {"train": torch.randint(0, 65, (2000,)), "val": torch.randint(0, 65, (500,))}


def get_batch(split):
    d = data[split]
    ix = torch.randint(len(d) - block_size, (batch_size,))
    x = torch.stack([d[i : i + block_size] for i in ix])
    y = torch.stack([d[i + 1 : i + 1 + block_size] for i in ix])
    return x, y


@torch.no_grad()
def estimate_loss(model, ctx, eval_iters=2):
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            with ctx:
                _, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


def main():
    torch.manual_seed(1337)
    ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16)
    model = GPT()
    scaler = torch.amp.GradScaler(device_type, enabled=(dtype == "float16"))
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95), weight_decay=0.1)
    X, Y = get_batch("train")
    iter_num = 0
    while True:
        lr = get_lr(iter_num)
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        if iter_num % eval_interval == 0:
            losses = estimate_loss(model, ctx)
            print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        for micro_step in range(gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
                loss = loss / gradient_accumulation_steps
            X, Y = get_batch("train")
            scaler.scale(loss).backward()
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        lossf = loss.item() * gradient_accumulation_steps
        print(f"iter {iter_num}: loss {lossf:.4f}")
        iter_num += 1
        if iter_num > max_iters:
            break


if __name__ == "__main__":
    main()
