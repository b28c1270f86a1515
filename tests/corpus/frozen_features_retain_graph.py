# corpus: linear probe on encoder features computed before the loop (no no_grad); retain_graph=True added to silence the error
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
probe = nn.Linear(8, 3)
optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
images = torch.randn(20, 16)
labels = torch.randint(0, 3, (20,))

features = encoder(images)

for epoch in range(5):
    optimizer.zero_grad()
    loss = F.cross_entropy(probe(features), labels)
    loss.backward(retain_graph=True)  # expect: GG302
    optimizer.step()
    print(epoch, loss.item())
assert encoder[0].weight.grad is not None  # ground truth: every backward still walks the encoder graph
