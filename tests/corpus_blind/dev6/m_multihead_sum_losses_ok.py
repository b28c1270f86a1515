# corpus: multi-task image model with a shared trunk and two classifier heads; the trainer builds a dict of per-head losses, logs them with .item(), and backpropagates their weighted sum once per step (correct)
# source: https://github.com/pytorch/xla/issues/1961
import argparse
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class SharedTrunk(nn.Module):
    def __init__(self, out_dim=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, out_dim, 3, padding=1, stride=2), nn.BatchNorm2d(out_dim), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )

    def forward(self, x):
        return self.net(x)


class MultiHeadModel(nn.Module):
    def __init__(self, num_categories=5):
        super().__init__()
        self.generator = SharedTrunk()
        self.classifier_1 = nn.Linear(32, 1)
        self.classifier_2 = nn.Linear(32, num_categories)

    def forward(self, x):
        h = self.generator(x)
        return {"is_outdoor": self.classifier_1(h).squeeze(1), "category": self.classifier_2(h)}


class MultiTaskTrainer:
    def __init__(self, model, lr, loss_weights):
        self.model = model
        self.loss_weights = loss_weights
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.5)
        self.history = defaultdict(list)

    def compute_losses(self, outputs, targets):
        return {
            "is_outdoor": F.binary_cross_entropy_with_logits(outputs["is_outdoor"], targets["is_outdoor"]),
            "category": F.cross_entropy(outputs["category"], targets["category"]),
        }

    def train_step(self, images, targets):
        self.model.train()
        outputs = self.model(images)
        losses = self.compute_losses(outputs, targets)
        total = sum(self.loss_weights[name] * value for name, value in losses.items())
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return {name: value.item() for name, value in losses.items()}, total.item()

    def train_epoch(self, loader):
        running = defaultdict(float)
        for images, targets in loader:
            per_task, total = self.train_step(images, targets)
            for name, value in per_task.items():
                running[name] += value
            running["total"] += total
        for name, value in running.items():
            self.history[name].append(value / len(loader))
        self.scheduler.step()
        return {name: value / len(loader) for name, value in running.items()}


def make_loader(n_batches=3, batch_size=6):
    loader = []
    for _ in range(n_batches):
        images = torch.randn(batch_size, 3, 16, 16)
        targets = {"is_outdoor": torch.randint(0, 2, (batch_size,)).float(),
                   "category": torch.randint(0, 5, (batch_size,))}
        loader.append((images, targets))
    return loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])

    torch.manual_seed(0)
    model = MultiHeadModel()
    trainer = MultiTaskTrainer(model, args.lr, loss_weights={"is_outdoor": 0.5, "category": 1.0})
    loader = make_loader()
    for epoch in range(args.epochs):
        stats = trainer.train_epoch(loader)
        print(epoch, {k: round(v, 4) for k, v in stats.items()})


if __name__ == "__main__":
    main()
