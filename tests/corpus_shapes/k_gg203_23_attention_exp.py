# corpus: module-level attention functions returning tuples; attention_weights() normalises exp(scores) through .data, so exp's backward reads the normalised output and the gradient is silently wrong
# source: docs/rules/GG203.md (shape: 2, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F


def attention_weights(q, k):
    scores = q @ k.transpose(-1, -2) / k.shape[-1] ** 0.5
    weights = torch.exp(scores)
    weights.data.div_(weights.data.sum(dim=-1, keepdim=True))  # expect: GG203
    return weights, scores


def attend(proj, x):
    q, k, v = proj["q"](x), proj["k"](x), proj["v"](x)
    weights, _ = attention_weights(q, k)
    return weights @ v, weights


def compute_loss(proj, x, y):
    out, weights = attend(proj, x)
    return F.mse_loss(out.mean(dim=1), y)


def main():
    torch.manual_seed(0)
    proj = nn.ModuleDict({name: nn.Linear(4, 4) for name in ("q", "k", "v")})
    optimizer = torch.optim.Adam(proj.parameters(), lr=1e-3)
    batches = [(torch.randn(2, 5, 4), torch.randn(2, 4)) for _ in range(3)]
    for x, y in batches:
        loss = compute_loss(proj, x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return proj, batches


if __name__ == "__main__":
    main()
