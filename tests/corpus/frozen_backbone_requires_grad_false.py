# corpus: frozen backbone (requires_grad_(False)) run once before the loop; only the head trains
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
backbone.requires_grad_(False)
head = nn.Linear(8, 1)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
x = torch.randn(16, 4)
y = torch.randn(16, 1)
feats = backbone(x)
for epoch in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(head(feats), y)
    loss.backward()
    opt.step()
