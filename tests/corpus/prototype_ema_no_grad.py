# corpus: center-loss style training whose running class prototype is updated under torch.no_grad() (nothing carried)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4))
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
prototype = torch.zeros(4)
momentum = 0.9

for step in range(6):
    batch = torch.randn(10, 6)
    feats = encoder(batch)
    with torch.no_grad():
        prototype = momentum * prototype + (1 - momentum) * feats.mean(dim=0)
    loss = F.mse_loss(feats, prototype.expand_as(feats))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 4))
