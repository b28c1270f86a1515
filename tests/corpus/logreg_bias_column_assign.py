# corpus: logistic regression with a weight vector whose first entry is pinned by index assignment each epoch
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
import torch
import torch.nn.functional as F

torch.manual_seed(0)

features = torch.randn(64, 4)
labels = (features[:, 0] + features[:, 1] > 0).float()
weights = torch.randn(5, requires_grad=True)
optimizer = torch.optim.SGD([weights], lr=0.5)
ones = torch.ones(64, 1)
design = torch.cat([ones, features], dim=1)

for epoch in range(10):
    weights[0] = 0.0  # expect: GG108
    logits = design @ weights
    loss = F.binary_cross_entropy_with_logits(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: {loss.item():.4f}")
