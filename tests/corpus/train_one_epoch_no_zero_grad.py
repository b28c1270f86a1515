# corpus: train_one_epoch/evaluate helpers in notebook style; train_one_epoch never zeroes gradients
import torch
import torch.nn as nn


def train_one_epoch(model, batches, optimizer, criterion):
    model.train()
    total = 0.0
    for xb, yb in batches:
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()  # expect: GG201
        optimizer.step()
        total += loss.item()
    return total / len(batches)


@torch.no_grad()
def evaluate(model, batches, criterion):
    model.eval()
    return sum(criterion(model(xb), yb).item() for xb, yb in batches) / len(batches)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()
train_batches = [(torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(4)]
val_batches = [(torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(2)]

for epoch in range(3):
    tr = train_one_epoch(model, train_batches, optimizer, criterion)
    va = evaluate(model, val_batches, criterion)
    print(f"epoch {epoch}: train {tr:.3f} val {va:.3f}")
