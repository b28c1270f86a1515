# corpus: fast adversarial training PGD loop reuses one delta leaf across attack iterations and never clears delta.grad, so each step uses the sum of all earlier input gradients
# source: https://github.com/locuslab/fast_adversarial/issues/26
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MnistMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)


def attack_pgd(model, X, y, epsilon, alpha, attack_iters, opt, trace=None):
    delta = torch.zeros_like(X).uniform_(-epsilon, epsilon)
    delta.data = torch.max(torch.min(1 - X, delta.data), 0 - X)
    for _ in range(attack_iters):
        delta.requires_grad = True
        output = model(X + delta)
        loss = F.cross_entropy(output, y)
        opt.zero_grad()
        loss.backward()  # expect: GG201
        grad = delta.grad.detach()  # also: GG201
        if trace is not None:
            trace.append((delta.detach().clone(), grad.clone()))
        delta.data = torch.clamp(delta + alpha * torch.sign(grad), -epsilon, epsilon)
        delta.data = torch.max(torch.min(1 - X, delta.data), 0 - X)
    return delta.detach()


def train_epoch(model, opt, loader, epsilon=0.3, alpha=0.05, attack_iters=4):
    model.train()
    stats = {"loss": 0.0, "n": 0}
    for X, y in loader:
        delta = attack_pgd(model, X, y, epsilon, alpha, attack_iters, opt)
        output = model(torch.clamp(X + delta, 0, 1))
        loss = F.cross_entropy(output, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        stats["loss"] += loss.item() * y.size(0)
        stats["n"] += y.size(0)
    return stats["loss"] / stats["n"]


def main():
    model = MnistMLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = [(torch.rand(16, 16), torch.randint(0, 4, (16,))) for _ in range(3)]
    train_epoch(model, opt, loader)

    # ground truth: the gradient used at attack step 2 is not the gradient at that point
    X, y = loader[0]
    trace = []
    attack_pgd(model, X, y, 0.3, 0.05, 3, opt, trace=trace)
    delta_2, used_grad = trace[1]
    d = delta_2.clone().requires_grad_(True)
    fresh = torch.autograd.grad(F.cross_entropy(model(X + d), y), d)[0]
    assert not torch.allclose(used_grad, fresh)  # ground truth: delta.grad accumulated across steps
    assert torch.allclose(used_grad, fresh + trace[0][1], atol=1e-6)  # ground truth: it is the running sum


if __name__ == "__main__":
    main()
