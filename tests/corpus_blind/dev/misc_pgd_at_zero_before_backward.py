# corpus: PGD adversarial training whose attack pollutes parameter grads, but the delta grad is cleared every attack step and opt.zero_grad() runs right before the robust-loss backward (correct)
# source: https://github.com/P2333/Bag-of-Tricks-for-AT/issues/8
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

EPSILON, ALPHA, ATTACK_ITERS = 0.1, 0.03, 5


def clamp(x, lower, upper):
    return torch.max(torch.min(x, upper), lower)


def attack_pgd(model, X, y, epsilon, alpha, attack_iters):
    delta = torch.zeros_like(X).uniform_(-epsilon, epsilon)
    delta = clamp(delta, -X, 1 - X)
    delta.requires_grad = True
    for _ in range(attack_iters):
        loss = F.cross_entropy(model(X + delta), y)
        loss.backward()
        grad = delta.grad.detach()
        d = torch.clamp(delta + alpha * torch.sign(grad), -epsilon, epsilon)
        delta.data = clamp(d, -X, 1 - X)
        delta.grad.zero_()
    return delta.detach()


def robust_backward(model, opt, X, y):
    delta = attack_pgd(model, X, y, EPSILON, ALPHA, ATTACK_ITERS)
    robust_loss = F.cross_entropy(model(clamp(X + delta, torch.zeros_like(X), torch.ones_like(X))), y)
    opt.zero_grad()
    robust_loss.backward()
    return delta, robust_loss.item()


def main():
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batches = [(torch.rand(16, 20), torch.randint(0, 5, (16,))) for _ in range(3)]
    for X, y in batches:
        robust_backward(model, opt, X, y)
        opt.step()

    X, y = batches[0]
    delta, _ = robust_backward(model, opt, X, y)
    used = [p.grad.clone() for p in model.parameters()]
    reference = copy.deepcopy(model)
    reference.zero_grad()
    F.cross_entropy(reference(clamp(X + delta, torch.zeros_like(X), torch.ones_like(X))), y).backward()
    assert all(torch.allclose(u, r.grad) for u, r in zip(used, reference.parameters()))
    assert delta.grad_fn is None and delta.abs().max() <= EPSILON + 1e-6


if __name__ == "__main__":
    main()
