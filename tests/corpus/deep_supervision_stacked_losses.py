# corpus: deep supervision: per-stage losses collected in a list inside the step, stacked and backpropagated once
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

stages = nn.ModuleList([nn.Sequential(nn.Linear(8, 8), nn.ReLU()) for _ in range(3)])
aux_heads = nn.ModuleList([nn.Linear(8, 2) for _ in range(3)])
optimizer = torch.optim.Adam([*stages.parameters(), *aux_heads.parameters()], lr=1e-3)
x = torch.randn(10, 8)
y = torch.randint(0, 2, (10,))

for epoch in range(3):
    optimizer.zero_grad()
    h = x
    stage_losses = []
    for stage, aux in zip(stages, aux_heads):
        h = stage(h)
        stage_losses.append(F.cross_entropy(aux(h), y))
    loss = torch.stack(stage_losses).mean()
    loss.backward()
    optimizer.step()
    print(epoch, [round(v.item(), 3) for v in stage_losses])
