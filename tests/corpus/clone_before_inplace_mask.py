# corpus: attention weights cloned before an in-place mask after softmax, and concatenated features edited in place (both fine)
import torch
import torch.nn as nn

torch.manual_seed(0)

score = nn.Linear(8, 1)
value = nn.Linear(8, 8)
head = nn.Linear(10, 2)
optimizer = torch.optim.Adam([*score.parameters(), *value.parameters(), *head.parameters()], lr=1e-3)
seq = torch.randn(3, 6, 8)
extra = torch.randn(3, 2)
labels = torch.randint(0, 2, (3,))

for step in range(3):
    optimizer.zero_grad()
    attn = torch.softmax(score(seq).squeeze(-1), dim=1)
    attn = attn.clone()
    attn[:, 0] = 0.0
    pooled = (attn.unsqueeze(-1) * value(seq)).sum(dim=1)
    feats = torch.cat([pooled[:, :8], extra], dim=1)
    feats[:, -1] = 1.0
    loss = nn.functional.cross_entropy(head(feats), labels)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
