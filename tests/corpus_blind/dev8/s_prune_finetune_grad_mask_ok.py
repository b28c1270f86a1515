# corpus: weight-level pruning then fine-tuning (rethinking-network-pruning style): weights zeroed through .data before training, gradients of pruned weights masked with m.weight.grad.data.mul_(mask) between backward and step, AverageMeter fed loss.item(), validation under no_grad with best-checkpoint early stopping (correct)
# source: https://github.com/Eric-mingjie/rethinking-network-pruning/issues/13
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class VGGLite(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.feature = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.classifier(self.feature(x).flatten(1))


def prune(model, percent):
    total = sum(m.weight.data.numel() for m in model.modules() if isinstance(m, nn.Conv2d))
    conv_weights = torch.cat([m.weight.data.view(-1).abs().clone() for m in model.modules() if isinstance(m, nn.Conv2d)])
    y, _ = torch.sort(conv_weights)
    thre = y[int(total * percent)]
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            mask = m.weight.data.abs().clone().gt(thre).float()
            m.weight.data.mul_(mask)


def train(model, optimizer, batches):
    model.train()
    losses = AverageMeter()
    for data, target in batches:
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        for k, m in enumerate(model.modules()):
            if isinstance(m, nn.Conv2d):
                weight_copy = m.weight.data.abs().clone()
                mask = weight_copy.gt(0).float()
                m.weight.grad.data.mul_(mask)
        optimizer.step()
        losses.update(loss.item(), data.size(0))
    return losses.avg


def test(model, batches):
    model.eval()
    test_loss = AverageMeter()
    correct = 0
    with torch.no_grad():
        for data, target in batches:
            output = model(data)
            test_loss.update(F.cross_entropy(output, target).item(), data.size(0))
            correct += output.argmax(1).eq(target).sum().item()
    return test_loss.avg, correct


def main():
    parser = argparse.ArgumentParser(description="fine-tune a pruned model")
    parser.add_argument("--percent", type=float, default=0.5)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--patience", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = VGGLite()
    prune(model, args.percent)
    zeros_before = sum((m.weight.data == 0).sum().item() for m in model.modules() if isinstance(m, nn.Conv2d))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    train_batches = [(torch.randn(8, 3, 8, 8), torch.randint(0, 10, (8,))) for _ in range(3)]
    val_batches = [(torch.randn(8, 3, 8, 8), torch.randint(0, 10, (8,))) for _ in range(2)]
    best_loss, best_state, bad_epochs = float("inf"), None, 0
    for epoch in range(args.epochs):
        train_loss = train(model, optimizer, train_batches)
        val_loss, correct = test(model, val_batches)
        print(f"epoch {epoch} train {train_loss:.4f} val {val_loss:.4f} correct {correct}")
        if val_loss < best_loss:
            best_loss, best_state, bad_epochs = val_loss, copy.deepcopy(model.state_dict()), 0
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                print("early stopping")
                break
    model.load_state_dict(best_state)
    zeros_after = sum((m.weight.data == 0).sum().item() for m in model.modules() if isinstance(m, nn.Conv2d))
    assert zeros_after >= zeros_before


if __name__ == "__main__":
    main()
