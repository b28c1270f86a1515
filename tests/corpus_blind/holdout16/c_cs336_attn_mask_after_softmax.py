# corpus: From-scratch Transformer LM (RMSNorm, RoPE, SwiGLU) whose attention applies the causal mask after torch.softmax by zeroing probabilities through .data; softmax saved those probabilities for its backward, so the q/k gradients are silently computed from the edited values instead of the loss actually computed.
# source: https://github.com/lllldj/cs336/blob/main/cs336_basics/myModule.py
import torch
import torch.nn as nn
import torch.nn.functional as F


def toy_product_atte(Q, K, V, mask=None):
    d_k = torch.tensor(Q.shape[-1], dtype=Q.dtype)
    Qk = Q @ K.transpose(-2, -1) / torch.sqrt(d_k)
    sQk = torch.softmax(Qk, dim=-1)
    if mask is not None:
        sQk.data.masked_fill_(mask == False, 0.0)  # expect: GG203
    return sQk @ V


class toy_Liner(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        nn.init.trunc_normal_(self.weight, std=0.2)

    def forward(self, x):
        return x @ self.weight.transpose(-2, -1)


class toy_RMSnorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gain = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        rmsx = x.square().mean(-1, keepdim=True)
        return x * self.gain / torch.sqrt(rmsx + self.eps)


class toy_SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.W1 = nn.Parameter(torch.randn(d_ff, d_model) * 0.1)
        self.W2 = nn.Parameter(torch.randn(d_model, d_ff) * 0.1)
        self.W3 = nn.Parameter(torch.randn(d_ff, d_model) * 0.1)

    def forward(self, x):
        W3x = x @ self.W3.transpose(-2, -1)
        W1x = x @ self.W1.transpose(-2, -1)
        Slu = W1x * torch.sigmoid(W1x)
        return (Slu * W3x) @ self.W2.transpose(-2, -1)


class toy_RoPE(nn.Module):
    def __init__(self, d_k, theta, max_len):
        super().__init__()
        self.rot_d = d_k // 2
        i = torch.arange(self.rot_d, dtype=torch.float32)
        j = torch.arange(max_len, dtype=torch.float32)
        inv_freq = torch.exp(-(2 * i) / d_k * torch.log(torch.tensor(theta)))
        thetas = j[:, None] * inv_freq[None, :]
        self.register_buffer("cos_table", torch.cos(thetas), persistent=False)
        self.register_buffer("sin_table", torch.sin(thetas), persistent=False)

    def forward(self, x, tk_posistions):
        cos, sin = self.cos_table[tk_posistions], self.sin_table[tk_posistions]
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)


class multi_attention(nn.Module):
    def __init__(self, d_in, num_heads, max_seq_len, theta):
        super().__init__()
        self.c_attention = toy_Liner(d_in, 3 * d_in)
        self.proj = toy_Liner(d_in, d_in)
        self.num_head = num_heads
        self.d_head = d_in // num_heads
        self.ropez = toy_RoPE(self.d_head, theta, max_seq_len)
        self.register_buffer("trill", torch.tril(torch.ones(max_seq_len, max_seq_len, dtype=torch.bool)), persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        Q, K, V = self.c_attention(x).split(C, -1)
        qs = Q.view(B, T, self.num_head, self.d_head).transpose(1, 2)
        ks = K.view(B, T, self.num_head, self.d_head).transpose(1, 2)
        vs = V.view(B, T, self.num_head, self.d_head).transpose(1, 2)
        tk_ps = torch.arange(T)
        qs, ks = self.ropez(qs, tk_ps), self.ropez(ks, tk_ps)
        atts = toy_product_atte(qs, ks, vs, self.trill[:T, :T]).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(atts)


class transformer_block(nn.Module):
    def __init__(self, d_in, num_heads, d_ff, max_seq_len, theta):
        super().__init__()
        self.norm1 = toy_RMSnorm(d_in)
        self.atte = multi_attention(d_in, num_heads, max_seq_len, theta)
        self.norm2 = toy_RMSnorm(d_in)
        self.ff = toy_SwiGLU(d_in, d_ff)

    def forward(self, x):
        x = x + self.atte(self.norm1(x))
        return x + self.ff(self.norm2(x))


class TransformerLM(nn.Module):
    def __init__(self, vocab_size=64, context_length=16, d_model=32, num_layers=2, num_heads=4, d_ff=64, theta=10000.0):
        super().__init__()
        self.embd = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList([transformer_block(d_model, num_heads, d_ff, context_length, theta)
                                     for _ in range(num_layers)])
        self.ln_final = toy_RMSnorm(d_model)
        self.lm_head = toy_Liner(d_model, vocab_size)

    def forward(self, x):
        h = self.embd(x)
        for layer in self.layers:
            h = layer(h)
        return self.lm_head(self.ln_final(h))


def get_batch(dataset, batch_size, context_length):
    starts = torch.randint(0, len(dataset) - context_length - 1, (batch_size,))
    x = torch.stack([dataset[s : s + context_length] for s in starts])
    y = torch.stack([dataset[s + 1 : s + 1 + context_length] for s in starts])
    return x, y


def train(model, dataset, steps=5, batch_size=4, context_length=16):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(steps):
        x, y = get_batch(dataset, batch_size, context_length)
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    dataset = torch.randint(0, 64, (400,))
    train(TransformerLM(), dataset)


if __name__ == "__main__":
    main()
