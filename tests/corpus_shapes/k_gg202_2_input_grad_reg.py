# corpus: module-level functions for input-gradient regularisation; input_gradient_penalty() takes autograd.grad of the loss w.r.t. the input without create_graph, so the regulariser never trains the model (silent)
# source: docs/rules/GG202.md (shape: 2)
import torch
import torch.nn as nn
import torch.nn.functional as F


def input_gradient_penalty(model, x, y):
    x = x.clone().requires_grad_(True)
    ce = F.cross_entropy(model(x), y)
    grad_x, = torch.autograd.grad(ce, x, retain_graph=True)  # expect: GG202
    return ce, grad_x.pow(2).sum(dim=1).mean()


def compute_loss(model, x, y, lam):
    ce, penalty = input_gradient_penalty(model, x, y)
    return ce + lam * penalty, penalty


def train_one_epoch(model, optimizer, data, lam=0.5):
    penalties = []
    for x, y in data:
        loss, penalty = compute_loss(model, x, y, lam)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        penalties.append(penalty)
    return penalties


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(3)]
    for epoch in range(2):
        penalties = train_one_epoch(model, optimizer, data)
    return model, data, penalties


if __name__ == "__main__":
    main()
