# corpus: image-classification training loop with the classic AverageMeter (the one contrasted with torchmetrics MeanMetric) for loss, top-1 and batch time, fed with loss.item() and python floats, so the meters hold no tensors and no graph survives the step; correct
# source: https://github.com/Lightning-AI/torchmetrics/issues/890
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, name, fmt=":f"):
        self.name, self.fmt = name, fmt
        self.reset()

    def reset(self):
        self.val = .0
        self.avg = .0
        self.sum = .0
        self.count = .0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        return ("{name} {val" + self.fmt + "} ({avg" + self.fmt + "})").format(**self.__dict__)


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        _, pred = output.topk(maxk, 1, True, True)
        correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
        return [correct[:k].reshape(-1).float().sum(0) * 100.0 / target.size(0) for k in topk]


class SmallNet(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.fc = nn.Linear(8 * 16, n_classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def train_one_epoch(model, loader, optimizer, epoch, print_freq=2):
    batch_time, losses, top1 = AverageMeter("Time", ":6.3f"), AverageMeter("Loss", ":.4e"), AverageMeter("Acc@1", ":6.2f")
    model.train()
    end = time.time()
    for i, (images, target) in enumerate(loader):
        output = model(images)
        loss = F.cross_entropy(output, target)
        acc1, = accuracy(output, target, topk=(1,))
        losses.update(loss.item(), images.size(0))
        top1.update(acc1.item(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_time.update(time.time() - end)
        end = time.time()
        if i % print_freq == 0:
            print(f"Epoch [{epoch}][{i}/{len(loader)}]  {batch_time}  {losses}  {top1}")
    return losses, top1


def main():
    torch.manual_seed(0)
    model = SmallNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = [(torch.randn(8, 3, 16, 16), torch.randint(0, 5, (8,))) for _ in range(4)]
    for epoch in range(2):
        losses, top1 = train_one_epoch(model, loader, optimizer, epoch)
        assert isinstance(losses.sum, float) and isinstance(top1.sum, float)
        print(f"epoch {epoch} avg loss {losses.avg:.4f} avg acc {top1.avg:.2f}")


if __name__ == "__main__":
    main()
