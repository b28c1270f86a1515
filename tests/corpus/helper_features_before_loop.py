# corpus: features produced by a helper function before the loop, from an encoder that is also being optimized
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def extract_features(encoder, x):
    h = encoder(x)
    return F.normalize(h, dim=1)


encoder = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 8))
classifier = nn.Linear(8, 2)
optimizer = torch.optim.Adam([*encoder.parameters(), *classifier.parameters()], lr=1e-3)
x = torch.randn(14, 10)
y = torch.randint(0, 2, (14,))
feats = extract_features(encoder, x)  # expect: GG103

for epoch in range(3):
    optimizer.zero_grad()
    loss = F.cross_entropy(classifier(feats), y)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
