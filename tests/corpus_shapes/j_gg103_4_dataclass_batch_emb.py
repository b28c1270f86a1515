# corpus: a Batch dataclass is built once with embeddings from a trainable nn.Embedding; the epoch loop reads batch.emb and backpropagates every iteration
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG103.md (shape: 4, 3)
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Batch:
    emb: torch.Tensor
    labels: torch.Tensor
    mask: torch.Tensor


torch.manual_seed(0)
embed = nn.Embedding(20, 6)
classifier = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.Adam([*embed.parameters(), *classifier.parameters()], lr=1e-2)
ids = torch.randint(0, 20, (4, 5))
mask = (torch.rand(4, 5) > 0.2).float()
batch = Batch(emb=torch.tanh(embed(ids)), labels=torch.tensor([0, 1, 2, 1]), mask=mask)  # expect: GG103
history = []
for epoch in range(3):
    pooled = (batch.emb * batch.mask[..., None]).sum(1) / batch.mask.sum(1, keepdim=True)  # also: GG103
    loss = F.cross_entropy(classifier(pooled), batch.labels)
    opt.zero_grad()
    loss.backward()  # also: GG103
    opt.step()
    history.append(loss.item())
print(history)
