# corpus: fast FGSM adversarial training on MNIST (fast_adversarial train_mnist shape) after adding the missing clamp of the random initial perturbation: the clamp is written as delta.clamp_() on delta after delta.requires_grad = True, an in-place op on a leaf that requires grad
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/locuslab/fast_adversarial/issues/21
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Flatten(nn.Module):
    def forward(self, x):
        return x.view(x.size(0), -1)


def mnist_net():
    return nn.Sequential(
        nn.Conv2d(1, 8, 4, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 16, 4, stride=2, padding=1), nn.ReLU(),
        Flatten(), nn.Linear(16 * 7 * 7, 32), nn.ReLU(), nn.Linear(32, 10))


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", default=2, type=int)
    parser.add_argument("--epsilon", default=0.3, type=float)
    parser.add_argument("--alpha", default=0.375, type=float)
    parser.add_argument("--lr-max", default=5e-3, type=float)
    return parser.parse_args([])


def make_loader(n_batches=3, batch_size=16):
    return [(torch.rand(batch_size, 1, 28, 28), torch.randint(0, 10, (batch_size,))) for _ in range(n_batches)]


def fgsm_step(model, X, y, args):
    delta = torch.zeros_like(X).uniform_(-args.epsilon, args.epsilon)
    delta.requires_grad = True
    delta.clamp_(0 - X, 1 - X)  # expect: GG108
    output = model(X + delta)
    loss = F.cross_entropy(output, y)
    loss.backward()
    grad = delta.grad.detach()
    delta.data = torch.clamp(delta + args.alpha * torch.sign(grad), -args.epsilon, args.epsilon)
    delta.data = torch.max(torch.min(1 - X, delta.data), 0 - X)
    return delta.detach()


def train(model, loader, args):
    opt = torch.optim.Adam(model.parameters(), lr=args.lr_max)
    for epoch in range(args.epochs):
        train_loss, train_acc, train_n = 0.0, 0, 0
        for X, y in loader:
            delta = fgsm_step(model, X, y, args)
            output = model(torch.clamp(X + delta, 0, 1))
            loss = F.cross_entropy(output, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            train_loss += loss.item() * y.size(0)
            train_acc += (output.max(1)[1] == y).sum().item()
            train_n += y.size(0)
        print(f"epoch {epoch} loss {train_loss / train_n:.4f} acc {train_acc / train_n:.4f}")


def main():
    torch.manual_seed(0)
    args = get_args()
    train(mnist_net(), make_loader(), args)


if __name__ == "__main__":
    main()
