# corpus: click-through model clamps its sigmoid output through .data for a "safe" BCE; SigmoidBackward then reads the clamped values and the gradients are silently wrong
# source: https://github.com/pytorch/pytorch/issues/6990
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class CTRModel(nn.Module):
    def __init__(self, num_fields=4, vocab=30, dim=6, eps=0.05):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.Embedding(vocab, dim) for _ in range(num_fields)])
        self.mlp = nn.Sequential(nn.Linear(num_fields * dim, 16), nn.ReLU(), nn.Linear(16, 1))
        self.eps = eps

    def forward(self, fields):
        h = torch.cat([emb(fields[:, i]) for i, emb in enumerate(self.embeddings)], dim=-1)
        logits = self.mlp(h).squeeze(-1) * 6.0
        probs = torch.sigmoid(logits)
        probs.data.clamp_(self.eps, 1 - self.eps)  # expect: GG203
        return probs


class ReferenceCTR(CTRModel):
    def forward(self, fields):
        h = torch.cat([emb(fields[:, i]) for i, emb in enumerate(self.embeddings)], dim=-1)
        logits = self.mlp(h).squeeze(-1) * 6.0
        return torch.sigmoid(logits).clamp(self.eps, 1 - self.eps)


def grads_of(model, fields, clicks):
    model.zero_grad()
    loss = F.binary_cross_entropy(model(fields), clicks)
    loss.backward()  # also: GG203
    return [p.grad.clone() for p in model.mlp.parameters()]


def main():
    torch.manual_seed(0)
    model = CTRModel()
    reference = ReferenceCTR()
    reference.load_state_dict(copy.deepcopy(model.state_dict()))
    fields = torch.randint(0, 30, (64, 4))
    clicks = (torch.rand(64) > 0.7).float()
    g_model = grads_of(model, fields, clicks)
    g_ref = grads_of(reference, fields, clicks)
    return g_model, g_ref


if __name__ == "__main__":
    g_model, g_ref = main()
    # ground truth: the .data clamp changed the tensor SigmoidBackward saved, so the gradients differ from the tracked clamp
    assert not all(torch.allclose(a, b, atol=1e-6) for a, b in zip(g_model, g_ref))
    assert max((a - b).abs().max().item() for a, b in zip(g_model, g_ref)) > 1e-4
