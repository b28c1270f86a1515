# corpus: residual vector quantizer sums each codebook's loss over a ModuleList loop that may stop early (break) and returns the sums with the codes (no leak: returned to the caller, which backpropagates them)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Quantizer(nn.Module):
    def __init__(self, dim=4, size=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.codebook = nn.Embedding(size, dim)

    def forward(self, z):
        z_e = self.proj(z)
        indices = torch.cdist(z_e, self.codebook.weight).argmin(dim=1)
        z_q = F.embedding(indices, self.codebook.weight)
        commitment = F.mse_loss(z_e, z_q.detach())
        codebook = F.mse_loss(z_q, z_e.detach())
        return z_e + (z_q - z_e).detach(), commitment, codebook, indices


class ResidualQuantizer(nn.Module):
    def __init__(self, n_codebooks=3):
        super().__init__()
        self.quantizers = nn.ModuleList([Quantizer() for _ in range(n_codebooks)])

    def forward(self, z, n_quantizers=None):
        if n_quantizers is None:
            n_quantizers = len(self.quantizers)
        z_q = 0
        residual = z
        commitment_loss = 0
        codebook_loss = 0
        codes = []
        for i, quantizer in enumerate(self.quantizers):
            if i >= n_quantizers:
                break
            z_q_i, commitment_i, codebook_i, indices_i = quantizer(residual)
            z_q = z_q + z_q_i
            residual = residual - z_q_i
            commitment_loss += commitment_i
            codebook_loss += codebook_i
            codes.append(indices_i)
        return z_q, torch.stack(codes, dim=1), commitment_loss, codebook_loss


encoder = nn.Linear(6, 4)
rvq = ResidualQuantizer()
optimizer = torch.optim.Adam([*encoder.parameters(), *rvq.parameters()], lr=0.01)
for step in range(5):
    x = torch.randn(16, 6)
    z_q, codes, commitment_loss, codebook_loss = rvq(encoder(x), n_quantizers=2 + step % 2)
    loss = F.mse_loss(z_q, encoder(x).detach()) + 0.25 * commitment_loss + codebook_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("codes", tuple(codes.shape))
