# corpus: PGD attack object updates its requires_grad perturbation with `delta += alpha * grad.sign()` outside no_grad
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/1Konny/FGSM/issues/4
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        return self.fc(F.relu(self.conv(x)).flatten(1))


class PGDAttack:
    def __init__(self, model, eps=0.1, alpha=0.02, steps=3):
        self.model = model
        self.eps = eps
        self.alpha = alpha
        self.steps = steps

    def perturb(self, x, y):
        delta = torch.zeros_like(x).uniform_(-self.eps, self.eps)
        delta.requires_grad_(True)
        for _ in range(self.steps):
            loss = F.cross_entropy(self.model(x + delta), y)
            loss.backward()
            delta += self.alpha * delta.grad.sign()  # expect: GG108
            delta.clamp_(-self.eps, self.eps)  # also: GG108
            delta.grad.zero_()
        return (x + delta).detach()


def adversarial_train_step(model, opt, attack, x, y):
    x_adv = attack.perturb(x, y)  # also: GG108
    opt.zero_grad()
    loss = F.cross_entropy(model(x_adv), y)
    loss.backward()
    opt.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    attack = PGDAttack(model)
    x = torch.rand(4, 1, 6, 6)
    y = torch.randint(0, 3, (4,))
    adversarial_train_step(model, opt, attack, x, y)


if __name__ == "__main__":
    main()
