# corpus: correct: train_one_epoch() appends loss.detach() to a list that is torch.stack-ed for the epoch mean, so no graph is kept
# source: docs/rules/GG301.md (shape: 2, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F


def compute_loss(model, x, y):
    return F.mse_loss(model(x), y)


def train_one_epoch(model, optimizer, data):
    losses = []
    for x, y in data:
        loss = compute_loss(model, x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses).mean().item()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
    for epoch in range(3):
        print(epoch, train_one_epoch(model, optimizer, data))


if __name__ == "__main__":
    main()
