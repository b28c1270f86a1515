# corpus: a contrastive model keeps a memory bank as a registered buffer; a no_grad helper overwrites its columns after the logits read it and before the backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MemoryContrast(nn.Module):
    def __init__(self, dim=8, size=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, dim))
        self.register_buffer("bank", F.normalize(torch.randn(dim, size), dim=0))
        self.size = size

    @torch.no_grad()
    def update_bank(self, keys, start):
        self.bank[:, start:start + keys.shape[0]] = keys.T  # expect: GG107

    def forward(self, x, start):
        q = F.normalize(self.encoder(x), dim=1)
        logits = q @ self.bank
        self.update_bank(q.detach(), start)
        return logits


model = MemoryContrast()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    logits = model(torch.randn(4, 12), start=4 * step)
    loss = F.cross_entropy(logits, torch.zeros(4, dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()
