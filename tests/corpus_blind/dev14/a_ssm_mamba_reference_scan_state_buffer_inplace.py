# corpus: Mamba-style block trained with a pure-PyTorch reference selective scan that preallocates the hidden-state buffer and writes each step into it in place (states[:, t + 1] = dA[:, t] * states[:, t] + dBx[:, t]); the multiply saved the previous slice, a view of the same buffer, so backward finds it modified
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/state-spaces/mamba/issues/642
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class MambaConfig:
    d_model: int = 16
    d_state: int = 8
    expand: int = 2
    dt_rank: int = 4
    vocab: int = 20

    @property
    def d_inner(self):
        return self.expand * self.d_model


def selective_scan_ref(u, delta, A, B, C, D):
    batch, seqlen, d_inner = u.shape
    dA = torch.exp(delta.unsqueeze(-1) * A)
    dBx = delta.unsqueeze(-1) * B.unsqueeze(2) * u.unsqueeze(-1)
    states = torch.zeros(batch, seqlen + 1, d_inner, A.shape[-1])
    for t in range(seqlen):
        states[:, t + 1] = dA[:, t] * states[:, t] + dBx[:, t]  # expect: GG107
    y = torch.einsum("bldn,bln->bld", states[:, 1:], C)
    return y + u * D


class MambaBlock(nn.Module):
    def __init__(self, cfg: MambaConfig):
        super().__init__()
        self.cfg = cfg
        self.in_proj = nn.Linear(cfg.d_model, 2 * cfg.d_inner)
        self.x_proj = nn.Linear(cfg.d_inner, cfg.dt_rank + 2 * cfg.d_state, bias=False)
        self.dt_proj = nn.Linear(cfg.dt_rank, cfg.d_inner)
        A = torch.arange(1, cfg.d_state + 1, dtype=torch.float32).repeat(cfg.d_inner, 1)
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(cfg.d_inner))
        self.out_proj = nn.Linear(cfg.d_inner, cfg.d_model)

    def forward(self, x):
        xz = self.in_proj(x)
        x_in, z = xz.chunk(2, dim=-1)
        x_in = F.silu(x_in)
        dbc = self.x_proj(x_in)
        dt, B, C = torch.split(dbc, [self.cfg.dt_rank, self.cfg.d_state, self.cfg.d_state], dim=-1)
        delta = F.softplus(self.dt_proj(dt))
        y = selective_scan_ref(x_in, delta, -torch.exp(self.A_log), B, C, self.D)
        return self.out_proj(y * F.silu(z))


class MambaLM(nn.Module):
    def __init__(self, cfg: MambaConfig, n_layers=2):
        super().__init__()
        self.embedding = nn.Embedding(cfg.vocab, cfg.d_model)
        self.layers = nn.ModuleList([MambaBlock(cfg) for _ in range(n_layers)])
        self.norms = nn.ModuleList([nn.LayerNorm(cfg.d_model) for _ in range(n_layers)])
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab, bias=False)

    def forward(self, tokens):
        h = self.embedding(tokens)
        for norm, layer in zip(self.norms, self.layers):
            h = h + layer(norm(h))
        return self.lm_head(h)


def train_step(model, optimizer, tokens):
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()  # also: GG107
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    cfg = MambaConfig()
    model = MambaLM(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(3):
        tokens = torch.randint(0, cfg.vocab, (4, 12))
        print(f"step {step} loss {train_step(model, optimizer, tokens):.4f}")


if __name__ == "__main__":
    main()
