# corpus: deep mutual learning trainer: all peers run their forward first, then each peer's CE+KL loss is backpropagated and stepped in turn; the KL target softmax(outputs[j]) is not detached, so net0's backward frees net1's graph and net1's own backward fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/chxy95/Deep-Mutual-Learning/issues/5
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    model_num: int = 2
    num_classes: int = 5
    init_lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 5e-4
    epochs: int = 2


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target):
    return (output.argmax(dim=1) == target).float().mean() * 100.0


class SmallResNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.block = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                   nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = F.relu(x + self.block(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class Trainer:
    def __init__(self, config, train_loader):
        self.config = config
        self.train_loader = train_loader
        self.model_num = config.model_num
        self.models, self.optimizers = [], []
        self.loss_kl = nn.KLDivLoss(reduction="batchmean")
        self.loss_ce = nn.CrossEntropyLoss()
        for _ in range(self.model_num):
            model = SmallResNet(config.num_classes)
            self.models.append(model)
            self.optimizers.append(torch.optim.SGD(model.parameters(), lr=config.init_lr,
                                                   momentum=config.momentum, weight_decay=config.weight_decay))

    def train_one_epoch(self, epoch):
        losses = [AverageMeter() for _ in range(self.model_num)]
        accs = [AverageMeter() for _ in range(self.model_num)]
        for model in self.models:
            model.train()
        for images, labels in self.train_loader:
            outputs = []
            for model in self.models:
                outputs.append(model(images))
            for i in range(self.model_num):
                ce_loss = self.loss_ce(outputs[i], labels)
                kl_loss = 0
                for j in range(self.model_num):
                    if i != j:
                        kl_loss += self.loss_kl(F.log_softmax(outputs[i], dim=1),
                                                F.softmax(outputs[j], dim=1))  # expect: GG102
                loss = ce_loss + kl_loss / (self.model_num - 1)
                prec = accuracy(outputs[i].data, labels)
                losses[i].update(loss.item(), images.size(0))
                accs[i].update(prec.item(), images.size(0))
                self.optimizers[i].zero_grad()
                loss.backward()  # also: GG102
                self.optimizers[i].step()
        return losses, accs

    def train(self):
        for epoch in range(self.config.epochs):
            train_losses, train_accs = self.train_one_epoch(epoch)
            for i in range(self.model_num):
                print(f"model_{i + 1}: train loss: {train_losses[i].avg:.3f} - train acc: {train_accs[i].avg:.3f}")


def main():
    torch.manual_seed(0)
    config = Config()
    train_loader = [(torch.randn(4, 3, 8, 8), torch.randint(0, config.num_classes, (4,))) for _ in range(3)]
    Trainer(config, train_loader).train()


if __name__ == "__main__":
    main()
