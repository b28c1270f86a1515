# corpus: module-level training functions; the backward_and_step() helper clears the gradients between backward() and step(), so the optimizer never changes the weights (silent)
# source: docs/rules/GG201.md (shape: 2)
import torch
import torch.nn as nn
import torch.nn.functional as F


def compute_loss(model, x, y):
    return F.cross_entropy(model(x), y)


def backward_and_step(loss, optimizer):
    loss.backward()
    optimizer.zero_grad()  # expect: GG201
    optimizer.step()


def train_one_epoch(model, optimizer, data):
    total = 0.0
    for x, y in data:
        loss = compute_loss(model, x, y)
        backward_and_step(loss, optimizer)
        total += loss.item()
    return total / len(data)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    data = [(torch.randn(8, 5), torch.randint(0, 3, (8,))) for _ in range(3)]
    epoch_losses = [train_one_epoch(model, optimizer, data) for epoch in range(3)]
    return model, epoch_losses


if __name__ == "__main__":
    main()
