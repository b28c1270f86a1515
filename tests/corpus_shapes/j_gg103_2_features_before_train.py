# corpus: main() extracts features with a trainable backbone once, then train() loops over epochs backpropagating through those pre-loop features
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG103.md (shape: 2)
import torch
import torch.nn as nn
import torch.nn.functional as F


def extract_features(backbone, x):
    return torch.tanh(backbone(x))


def train_epoch(head, opt, feats, y):
    opt.zero_grad()
    loss = F.mse_loss(head(feats), y)  # also: GG103
    loss.backward()  # also: GG103
    opt.step()
    return loss.item()


def train(head, opt, feats, y, epochs):
    return [train_epoch(head, opt, feats, y) for epoch in range(epochs)]


def main():
    torch.manual_seed(0)
    backbone = nn.Linear(4, 8)
    head = nn.Linear(8, 1)
    opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
    x = torch.randn(16, 4)
    y = torch.randn(16, 1)
    feats = extract_features(backbone, x)  # expect: GG103
    print(train(head, opt, feats, y, epochs=3))


if __name__ == "__main__":
    main()
