# corpus: evaluate() decorated with @torch.no_grad() sums loss tensors; a second eval uses inference_mode
import torch
import torch.nn as nn

torch.manual_seed(0)


@torch.no_grad()
def evaluate(model, batches, criterion):
    model.eval()
    total = torch.zeros(())
    for xb, yb in batches:
        total += criterion(model(xb), yb)
    model.train()
    return total / len(batches)


def evaluate_fast(model, batches, criterion):
    losses = []
    with torch.inference_mode():
        for xb, yb in batches:
            losses.append(criterion(model(xb), yb))
    return torch.stack(losses).mean()


model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
train = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(3)]
val = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(2)]

for epoch in range(3):
    for xb, yb in train:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    print(epoch, evaluate(model, val, criterion).item(), evaluate_fast(model, val, criterion).item())
