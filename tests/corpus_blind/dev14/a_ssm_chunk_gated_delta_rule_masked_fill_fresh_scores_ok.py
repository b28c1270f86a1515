# corpus: Gated DeltaNet layer trained with a pure-PyTorch chunked gated delta rule (shape of transformers' torch_chunk_gated_delta_rule): in-place masked_fill_ is applied only to freshly computed score products whose producers saved their inputs rather than their output, the triangular solve writes rows of a tensor nothing has saved, and per-chunk outputs are written into a preallocated buffer that is only read after the loop; one backward per step; correct
# source: https://github.com/huggingface/transformers/pull/45215
import torch
import torch.nn as nn
import torch.nn.functional as F


def l2norm(x, dim=-1, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).sum(dim, keepdim=True) + eps)


def torch_chunk_gated_delta_rule(query, key, value, g, beta, chunk_size=4):
    batch, heads, seq_len, k_dim = key.shape
    v_dim = value.shape[-1]
    query, key = l2norm(query), l2norm(key)
    query = query * k_dim ** -0.5
    v_beta = value * beta.unsqueeze(-1)
    k_beta = key * beta.unsqueeze(-1)
    n_chunks = seq_len // chunk_size
    query, key, value, k_beta, v_beta = [x.reshape(batch, heads, n_chunks, chunk_size, x.shape[-1])
                                         for x in (query, key, value, k_beta, v_beta)]
    g = g.reshape(batch, heads, n_chunks, chunk_size).cumsum(dim=-1)
    decay_mask = (g.unsqueeze(-1) - g.unsqueeze(-2)).tril().exp().tril()

    mask = torch.triu(torch.ones(chunk_size, chunk_size, dtype=torch.bool), diagonal=0)
    attn = -((k_beta @ key.transpose(-1, -2)) * decay_mask).masked_fill(mask, 0)
    for i in range(1, chunk_size):
        row = attn[..., i, :i].clone()
        sub = attn[..., :i, :i].clone()
        attn[..., i, :i] = row + (row.unsqueeze(-1) * sub).sum(-2)
    attn = attn + torch.eye(chunk_size)
    value = attn @ v_beta
    k_cumdecay = attn @ (k_beta * g.exp().unsqueeze(-1))

    state = torch.zeros(batch, heads, k_dim, v_dim)
    core_attn_out = torch.zeros(batch, heads, n_chunks, chunk_size, v_dim)
    mask = torch.triu(torch.ones(chunk_size, chunk_size, dtype=torch.bool), diagonal=1)
    for i in range(n_chunks):
        q_i, k_i, v_i = query[:, :, i], key[:, :, i], value[:, :, i]
        attn = (q_i @ k_i.transpose(-1, -2) * decay_mask[:, :, i]).masked_fill_(mask, 0)
        v_new = v_i - k_cumdecay[:, :, i] @ state
        attn_inter = (q_i * g[:, :, i, :, None].exp()) @ state
        core_attn_out[:, :, i] = attn_inter + attn @ v_new
        state = state * g[:, :, i, -1, None, None].exp() + \
            (k_i * (g[:, :, i, -1, None] - g[:, :, i]).exp()[..., None]).transpose(-1, -2) @ v_new
    return core_attn_out.reshape(batch, heads, seq_len, v_dim), state


class GatedDeltaNet(nn.Module):
    def __init__(self, d_model=16, heads=2, head_dim=8):
        super().__init__()
        self.heads, self.head_dim = heads, head_dim
        self.q_proj = nn.Linear(d_model, heads * head_dim, bias=False)
        self.k_proj = nn.Linear(d_model, heads * head_dim, bias=False)
        self.v_proj = nn.Linear(d_model, heads * head_dim, bias=False)
        self.a_proj = nn.Linear(d_model, heads)
        self.b_proj = nn.Linear(d_model, heads)
        self.o_proj = nn.Linear(heads * head_dim, d_model, bias=False)

    def forward(self, x):
        b, t, _ = x.shape
        split = lambda y: y.view(b, t, self.heads, -1).transpose(1, 2)
        q, k, v = split(F.silu(self.q_proj(x))), split(F.silu(self.k_proj(x))), split(self.v_proj(x))
        g = -F.softplus(self.a_proj(x)).transpose(1, 2)
        beta = torch.sigmoid(self.b_proj(x)).transpose(1, 2)
        out, _ = torch_chunk_gated_delta_rule(q, k, v, g, beta)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))


class TinyLM(nn.Module):
    def __init__(self, vocab=24, d_model=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.norm = nn.LayerNorm(d_model)
        self.mixer = GatedDeltaNet(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens):
        h = self.embed(tokens)
        h = h + self.mixer(self.norm(h))
        return self.head(h)


def main():
    torch.manual_seed(0)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(3):
        tokens = torch.randint(0, 24, (2, 17))
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
