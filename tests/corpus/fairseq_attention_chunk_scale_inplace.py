# corpus: a fairseq-style attention projects q, k, v at once for self-attention (recognised by equal data_ptr()) and splits them with chunk(3); scaling q in place changes one of several views chunk returned
# raises: RuntimeError: Output 0 of Split is a view and is being modified inplace
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.in_proj = nn.Linear(dim, 3 * dim)
        self.scaling = dim ** -0.5

    def forward(self, query, key, value):
        if query.data_ptr() == key.data_ptr() == value.data_ptr():
            q, k, v = self.in_proj(query).chunk(3, dim=-1)
        else:
            q = F.linear(query, self.in_proj.weight[:8], self.in_proj.bias[:8])
            k = F.linear(key, self.in_proj.weight[8:16], self.in_proj.bias[8:16])
            v = F.linear(value, self.in_proj.weight[16:], self.in_proj.bias[16:])
        q *= self.scaling  # expect: GG107
        return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v


torch.manual_seed(0)
attn = Attention(8)
x = torch.randn(2, 5, 8)
attn(x, x, x).sum().backward()
