# corpus: backbone frozen with requires_grad = False; its features are computed once before the loop (no graph)
import torch
import torch.nn as nn

torch.manual_seed(0)

backbone = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 16))
for p in backbone.parameters():
    p.requires_grad = False

head = nn.Linear(16, 3)
optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()
x = torch.randn(24, 20)
y = torch.randint(0, 3, (24,))
feats = backbone(x)

for epoch in range(4):
    optimizer.zero_grad()
    loss = criterion(head(feats), y)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
