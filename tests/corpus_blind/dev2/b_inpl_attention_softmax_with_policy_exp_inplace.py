# corpus: token-division tracker attention computes a policy-masked softmax with attn = attn - max_att; attn = attn.to(torch.float32).exp_() * policy, i.e. exp_ runs on a fresh subtraction result whose value no backward needs, and the mask is applied out of place (correct)
# source: https://github.com/Little-Podi/GRM/issues/7
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=2, qkv_bias=False, attn_drop=0., proj_drop=0.):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def softmax_with_policy(self, attn, policy, eps=1e-6):
        B, N, _ = policy.size()
        B, H, N, N = attn.size()
        attn_policy = policy.reshape(B, 1, 1, N)
        eye = torch.eye(N, dtype=attn_policy.dtype, device=attn_policy.device).view(1, 1, N, N)
        attn_policy = attn_policy + (1.0 - attn_policy) * eye
        max_att, _ = torch.max(attn, dim=-1, keepdim=True)
        attn = attn - max_att
        # for stable training
        attn = attn.to(torch.float32).exp_() * attn_policy.to(torch.float32)
        attn = (attn + eps / N) / (attn.sum(dim=-1, keepdim=True) + eps)
        return attn.type_as(max_att)

    def forward(self, x, policy=None):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        if policy is None:
            attn = attn.softmax(dim=-1)
        else:
            attn = self.softmax_with_policy(attn, policy)
        attn = self.attn_drop(attn)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj_drop(self.proj(x))


class Block(nn.Module):
    def __init__(self, dim, num_heads=2):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads=num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x, policy=None):
        x = x + self.attn(self.norm1(x), policy)
        return x + self.mlp(self.norm2(x))


class DivisionTracker(nn.Module):
    def __init__(self, dim=8, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.predictor = nn.Linear(dim, 1)
        self.head = nn.Linear(dim, 4)

    def forward(self, tokens):
        policy = torch.sigmoid(self.predictor(tokens))
        for blk in self.blocks:
            tokens = blk(tokens, policy)
        return self.head(tokens.mean(1))


def train(model, steps=3):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(steps):
        tokens, target = torch.randn(2, 6, 8), torch.randn(2, 4)
        loss = nn.functional.l1_loss(model(tokens), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print('step', step, 'loss', round(loss.item(), 4))


if __name__ == '__main__':
    torch.manual_seed(0)
    train(DivisionTracker())
