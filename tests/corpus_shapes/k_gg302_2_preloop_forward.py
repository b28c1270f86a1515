# corpus: main() runs the forward pass once and passes the prediction to fit(), whose epoch loop backpropagates it with retain_graph=True and steps; the second epoch's backward meets the stepped weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG302.md (shape: 2)
import torch
import torch.nn as nn
import torch.nn.functional as F


def build_model():
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))


def compute_loss(pred, y):
    return F.mse_loss(pred, y)


def fit(model, optimizer, pred, y, epochs):
    history = []
    for epoch in range(epochs):
        loss = compute_loss(pred, y)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # expect: GG302
        optimizer.step()
        history.append(loss.item())
    return history


def main():
    torch.manual_seed(0)
    model = build_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(32, 4), torch.randn(32, 1)
    pred = model(x)  # also: GG302
    fit(model, optimizer, pred, y, epochs=3)


if __name__ == "__main__":
    main()
