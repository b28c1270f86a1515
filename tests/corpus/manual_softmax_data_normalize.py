# corpus: attention pooling with hand-written softmax normalized through .data (silently wrong gradient)
import torch
import torch.nn as nn

torch.manual_seed(0)

scorer = nn.Linear(6, 1)
value_proj = nn.Linear(6, 6)
readout = nn.Linear(6, 2)
optimizer = torch.optim.Adam([*scorer.parameters(), *value_proj.parameters(), *readout.parameters()], lr=1e-3)
seq = torch.randn(4, 7, 6)
labels = torch.randint(0, 2, (4,))

for step in range(3):
    optimizer.zero_grad()
    weights = torch.exp(scorer(seq))
    weights.data.div_(weights.data.sum(dim=1, keepdim=True))  # expect: GG203
    pooled = (weights * value_proj(seq)).sum(dim=1)
    loss = nn.functional.cross_entropy(readout(pooled), labels)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
