# corpus: saliency map for a trained classifier: backward called on the whole score matrix instead of the class score
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn

torch.manual_seed(0)

clf = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 3))
opt = torch.optim.Adam(clf.parameters(), lr=1e-2)
data = torch.randn(30, 10)
labels = torch.randint(0, 3, (30,))
for epoch in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(clf(data), labels)
    loss.backward()
    opt.step()

clf.eval()
sample = torch.randn(1, 10, requires_grad=True)
scores = clf(sample)
scores.backward()  # expect: GG109
saliency = sample.grad.abs().squeeze(0)
print(saliency.argmax().item())
