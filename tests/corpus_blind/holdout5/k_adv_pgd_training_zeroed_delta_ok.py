# corpus: Madry-style PGD adversarial training (advertorch-like perturb loop): delta is an nn.Parameter whose .grad is detached and zeroed before every attack step, updated through .data, and the model step clears its own gradients before the training backward (correct)
# source: https://github.com/BorealisAI/advertorch/issues/15
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class LinfPGDAttack:
    def __init__(self, predict, eps=0.3, nb_iter=4, eps_iter=0.1, clip_min=0.0, clip_max=1.0):
        self.predict = predict
        self.loss_fn = nn.CrossEntropyLoss(reduction="sum")
        self.eps = eps
        self.nb_iter = nb_iter
        self.eps_iter = eps_iter
        self.clip_min = clip_min
        self.clip_max = clip_max

    def perturb(self, x, y):
        delta = nn.Parameter(torch.zeros_like(x).uniform_(-self.eps, self.eps))
        for _ in range(self.nb_iter):
            if delta.grad is not None:
                delta.grad.detach_()
                delta.grad.zero_()
            outputs = self.predict(x + delta)
            loss = self.loss_fn(outputs, y)
            loss.backward()
            grad_sign = delta.grad.data.sign()
            delta.data = delta.data + self.eps_iter * grad_sign
            delta.data = torch.clamp(delta.data, -self.eps, self.eps)
            delta.data = torch.clamp(x.data + delta.data, self.clip_min, self.clip_max) - x.data
        return (x + delta.data).detach()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        return self.fc(x.flatten(1))


def train(model, adversary, optimizer, loader, epoch):
    model.train()
    running_loss = 0.0
    for batch_idx, (data, target) in enumerate(loader):
        adv_data = adversary.perturb(data, target)
        optimizer.zero_grad()
        output = model(adv_data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print("epoch {} adv train loss {:.4f}".format(epoch, running_loss / len(loader)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    adversary = LinfPGDAttack(model)
    loader = [(torch.rand(4, 1, 8, 8), torch.randint(0, 10, (4,))) for _ in range(2)]
    for epoch in range(args.epochs):
        train(model, adversary, optimizer, loader, epoch)


if __name__ == "__main__":
    main()
