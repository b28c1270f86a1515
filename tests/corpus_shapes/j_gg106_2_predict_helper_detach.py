# corpus: compute_loss reuses an inference helper predict() that returns model(x).detach(), so train_one_epoch calls backward on a loss without a graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: docs/rules/GG106.md (shape: 2)
import torch
import torch.nn as nn
import torch.nn.functional as F


def predict(model, x):
    return model(x).detach()  # also: GG106


def compute_loss(model, x, y):
    pred = predict(model, x)
    return F.mse_loss(pred, y)


def train_one_epoch(model, opt, data):
    total = 0.0
    for x, y in data:
        loss = compute_loss(model, x, y)
        opt.zero_grad()
        loss.backward()  # expect: GG106
        opt.step()
        total += loss.item()
    return total / len(data)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(3)]
    for epoch in range(2):
        print(epoch, train_one_epoch(model, opt, data))


if __name__ == "__main__":
    main()
