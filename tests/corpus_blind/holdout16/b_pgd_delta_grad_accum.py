# corpus: PGD L-inf helper that steps the perturbation along delta.grad.sign() but never clears delta.grad, so every step follows the running sum of all previous input gradients instead of the current one.
# source: https://github.com/gmum/adversarial_examples_ae_layers/blob/3ddeafab05535ba65adee1f36f3cf2b83a09725e/adv_attacks.py
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResNetTiny(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 6, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(6)
        self.fc = nn.Linear(6, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)) + out)
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.fc(out)


def pgd_linf(model, X, y, epsilon, alpha, num_iter):
    delta = torch.zeros_like(X, requires_grad=True)
    for t in range(num_iter):
        loss = F.cross_entropy(model(X + delta), y)
        loss.backward()  # expect: GG201
        delta.data = (delta + alpha * delta.grad.detach().sign()).clamp(-epsilon, epsilon)
    return delta.detach()


def generate_adversarial(model, loader, epsilon=0.3, alpha=0.05, num_iter=8):
    model.eval()
    adv_batches = []
    for X, y in loader:
        delta = pgd_linf(model, X, y, epsilon, alpha, num_iter)
        adv_batches.append(((X + delta).clamp(0, 1), y))
    return adv_batches


def main():
    torch.manual_seed(0)
    model = ResNetTiny()
    loader = [(torch.rand(8, 1, 6, 6), torch.randint(0, 3, (8,))) for _ in range(2)]
    adv = generate_adversarial(model, loader)
    with torch.no_grad():
        for (X, y), (X_adv, _) in zip(loader, adv):
            clean = (model(X).argmax(1) == y).float().mean().item()
            robust = (model(X_adv).argmax(1) == y).float().mean().item()
            print(f"clean acc {clean:.2f}  adv acc {robust:.2f}")


if __name__ == "__main__":
    main()
