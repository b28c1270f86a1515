# corpus: a generator's perturbation is rescaled in place through .data twice before the classifier loss is backpropagated; the first change already corrupts what tanh saved, silently
import torch
import torch.nn as nn


torch.manual_seed(0)
netG = nn.Sequential(nn.Linear(6, 6), nn.Tanh())
clf = nn.Linear(6, 3)
for p in clf.parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(netG.parameters(), lr=1e-3)
for _ in range(2):
    delta = netG(torch.randn(4, 6))
    delta.data += 1  # expect: GG203
    delta.data *= 0.5
    loss = -nn.functional.cross_entropy(clf(delta), torch.randint(0, 3, (4,)))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
