# corpus: PGD adversarial training: the attack updates the perturbation with `delta += alpha * delta.grad.sign()` on a leaf that requires grad, outside torch.no_grad()
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/PKU-ML/Diffusion-PID-Protection/issues/1
import argparse
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class AttackConfig:
    eps: float = 8 / 255
    alpha: float = 2 / 255
    steps: int = 3


class SmallCNN(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, num_classes)

    def forward(self, x):
        h = F.relu(self.conv(x))
        h = F.adaptive_avg_pool2d(h, 4)
        return self.fc(h.flatten(1))


class PGDAttacker:
    def __init__(self, model, cfg: AttackConfig):
        self.model = model
        self.cfg = cfg
        self.criterion = nn.CrossEntropyLoss()

    def perturb(self, images, labels):
        delta = torch.zeros_like(images).uniform_(-self.cfg.eps, self.cfg.eps)
        delta.requires_grad_(True)
        for _ in range(self.cfg.steps):
            loss = self.criterion(self.model(images + delta), labels)
            loss.backward()
            delta += self.cfg.alpha * delta.grad.sign()  # expect: GG108
            delta.clamp_(-self.cfg.eps, self.cfg.eps)
            delta.grad.zero_()
        return (images + delta).clamp(0, 1).detach()


class AdversarialTrainer:
    def __init__(self, args):
        self.model = SmallCNN()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr, momentum=0.9)
        self.attacker = PGDAttacker(self.model, AttackConfig(steps=args.pgd_steps))
        self.args = args

    def train_epoch(self, loader):
        running = 0.0
        for images, labels in loader:
            self.model.eval()
            adv = self.attacker.perturb(images, labels)
            self.model.train()
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(adv), labels)
            loss.backward()
            self.optimizer.step()
            running += loss.item()
        return running / len(loader)


def make_loader(n_batches=2, batch_size=4):
    return [(torch.rand(batch_size, 3, 8, 8), torch.randint(0, 4, (batch_size,))) for _ in range(n_batches)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--pgd_steps", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = AdversarialTrainer(args)
    loader = make_loader()
    for epoch in range(args.epochs):
        print(f"epoch {epoch}: adv loss {trainer.train_epoch(loader):.4f}")


if __name__ == "__main__":
    main()
