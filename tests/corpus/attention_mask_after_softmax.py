# corpus: toy self-attention layer that masks the first key by index assignment after softmax
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import math

import torch
import torch.nn as nn

torch.manual_seed(0)

d = 8
q_proj = nn.Linear(d, d)
k_proj = nn.Linear(d, d)
v_proj = nn.Linear(d, d)
head = nn.Linear(d, 1)
modules = nn.ModuleList([q_proj, k_proj, v_proj, head])
optimizer = torch.optim.AdamW(modules.parameters(), lr=1e-3)
tokens = torch.randn(2, 5, d)
target = torch.randn(2, 1)

for step in range(2):
    optimizer.zero_grad()
    q, k, v = q_proj(tokens), k_proj(tokens), v_proj(tokens)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d)
    attn = torch.softmax(scores, dim=-1)
    attn[:, :, 0] = 0.0  # expect: GG107
    ctx = attn @ v
    pred = head(ctx.mean(dim=1))
    loss = (pred - target).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
