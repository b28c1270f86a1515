# gradguard reports GG102 (shared-graph-separate-backward) on line 16.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 4)
head = nn.Linear(4, 1)
optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()], lr=1e-3)
x = torch.randn(8, 6)
feat = torch.tanh(encoder(x))
task_loss = head(feat).pow(2).mean()
eig_vals, _ = torch.linalg.eigh(feat.T @ feat)
diversity_loss = -eig_vals.clamp_min(1e-6).log().mean()
optimizer.zero_grad()
task_loss.backward()
diversity_loss.backward()
optimizer.step()
