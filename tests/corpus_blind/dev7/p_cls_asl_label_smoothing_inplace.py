# corpus: single-label image classifier trained with a timm-style AsymmetricLossSingleLabel; the label-smoothing step mul_/add_ rewrites targets_classes in place after `xs_pos * targets` saved it for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/huggingface/pytorch-image-models/pull/1500
import argparse

import torch
import torch.nn as nn


class AsymmetricLossSingleLabel(nn.Module):
    def __init__(self, gamma_pos=1, gamma_neg=4, eps: float = 0.1, reduction="mean"):
        super().__init__()
        self.eps = eps
        self.logsoftmax = nn.LogSoftmax(dim=-1)
        self.targets_classes = []
        self.gamma_pos = gamma_pos
        self.gamma_neg = gamma_neg
        self.reduction = reduction

    def forward(self, inputs, target):
        num_classes = inputs.size()[-1]
        log_preds = self.logsoftmax(inputs)
        self.targets_classes = torch.zeros_like(inputs).scatter_(1, target.long().unsqueeze(1), 1)

        # ASL weights
        targets = self.targets_classes
        anti_targets = 1 - targets
        xs_pos = torch.exp(log_preds)
        xs_neg = 1 - xs_pos
        xs_pos = xs_pos * targets
        xs_neg = xs_neg * anti_targets
        asymmetric_w = torch.pow(1 - xs_pos - xs_neg,
                                 self.gamma_pos * targets + self.gamma_neg * anti_targets)
        log_preds = log_preds * asymmetric_w

        if self.eps > 0:  # label smoothing
            self.targets_classes.mul_(1 - self.eps).add_(self.eps / num_classes)  # expect: GG107

        loss = - self.targets_classes.mul(log_preds)
        loss = loss.sum(dim=-1)
        if self.reduction == "mean":
            loss = loss.mean()
        return loss


class SmallConvNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.head = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.head(self.features(x))


class Trainer:
    def __init__(self, args):
        self.args = args
        self.model = SmallConvNet(args.num_classes)
        self.criterion = AsymmetricLossSingleLabel(eps=args.smoothing)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr, momentum=0.9)

    def train_one_epoch(self, loader):
        self.model.train()
        for input, target in loader:
            output = self.model(input)
            loss = self.criterion(output, target)
            self.optimizer.zero_grad()
            loss.backward()  # also: GG107
            self.optimizer.step()


def make_loader(num_batches, batch_size, num_classes):
    return [(torch.randn(batch_size, 3, 8, 8), torch.randint(0, num_classes, (batch_size,)))
            for _ in range(num_batches)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-classes", type=int, default=5)
    parser.add_argument("--smoothing", type=float, default=0.1)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = Trainer(args)
    loader = make_loader(3, 8, args.num_classes)
    for epoch in range(args.epochs):
        trainer.train_one_epoch(loader)


if __name__ == "__main__":
    main()
