# corpus: scaled dot-product attention masks scores via attn.data.masked_fill_ before softmax; the scores are not saved by any backward, so gradients match masked_fill (correct)
# source: https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/16
import copy

import numpy as np
import torch
import torch.nn as nn


class ScaledDotProductAttention(nn.Module):
    def __init__(self, temperature, use_data=True):
        super().__init__()
        self.temperature = temperature
        self.softmax = nn.Softmax(dim=2)
        self.use_data = use_data

    def forward(self, q, k, v, attn_mask):
        attn = torch.bmm(q, k.transpose(1, 2))
        attn = attn / self.temperature
        if self.use_data:
            attn.data.masked_fill_(attn_mask, -float("inf"))
        else:
            attn = attn.masked_fill(attn_mask, -float("inf"))
        attn = self.softmax(attn)
        return torch.bmm(attn, v), attn


class SelfAttentionLayer(nn.Module):
    def __init__(self, d_model=8, use_data=True):
        super().__init__()
        self.w_qs = nn.Linear(d_model, d_model)
        self.w_ks = nn.Linear(d_model, d_model)
        self.w_vs = nn.Linear(d_model, d_model)
        self.attention = ScaledDotProductAttention(np.power(d_model, 0.5), use_data)
        self.fc = nn.Linear(d_model, d_model)

    def forward(self, x, pad_mask):
        out, _ = self.attention(self.w_qs(x), self.w_ks(x), self.w_vs(x), pad_mask)
        return self.fc(out)


def padding_mask(lengths, max_len):
    keys = torch.arange(max_len)[None, :] >= lengths[:, None]
    return keys[:, None, :].expand(-1, max_len, -1)


def grads(model, x, mask, target):
    model.zero_grad()
    loss = (model(x, mask) - target).pow(2).mean()
    loss.backward()
    return [p.grad.clone() for p in model.parameters()]


def main():
    torch.manual_seed(0)
    layer = SelfAttentionLayer(use_data=True)
    ref = copy.deepcopy(layer)
    ref.attention.use_data = False
    x = torch.randn(3, 5, 8)
    mask = padding_mask(torch.tensor([5, 3, 2]), 5)
    target = torch.randn(3, 5, 8)
    return layer, grads(layer, x, mask, target), grads(ref, x, mask, target)


if __name__ == "__main__":
    layer, g, g_ref = main()
    # ground truth: every parameter got a gradient and it equals the tracked masked_fill version
    assert all(p.grad is not None for p in layer.parameters())
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(g, g_ref))
