# corpus: input-gradient saliency done right: backward on the selected class score (a scalar), input made a leaf with requires_grad_
import torch
import torch.nn as nn

torch.manual_seed(0)

clf = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 3))
clf.eval()
for p in clf.parameters():
    p.requires_grad_(False)

samples = torch.randn(4, 10)
maps = []
for i in range(samples.size(0)):
    inp = samples[i:i + 1].clone().requires_grad_()
    scores = clf(inp)
    target = scores.argmax(dim=1).item()
    scores[0, target].backward()
    maps.append(inp.grad.abs().squeeze(0))
print(torch.stack(maps).argmax(dim=1).tolist())
