# corpus: linear probe on features precomputed before the loop under torch.no_grad()
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
probe = nn.Linear(8, 5)
optimizer = torch.optim.SGD(probe.parameters(), lr=0.5)
images = torch.randn(10, 3, 8, 8)
labels = torch.randint(0, 5, (10,))

backbone.eval()
with torch.no_grad():
    features = backbone(images)

for epoch in range(5):
    optimizer.zero_grad()
    loss = F.cross_entropy(probe(features), labels)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
