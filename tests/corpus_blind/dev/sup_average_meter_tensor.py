# corpus: ImageNet-style train() passes the loss tensor to AverageMeter.update, so meter.sum chains every batch's graph
# source: https://github.com/pytorch/pytorch/issues/6925
import torch
import torch.nn as nn


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, name, fmt=":f"):
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n  # also: GG301
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = "{name} {val" + self.fmt + "} ({avg" + self.fmt + "})"
        return fmtstr.format(name=self.name, val=float(self.val), avg=float(self.avg))


def accuracy(output, target):
    with torch.no_grad():
        pred = output.argmax(dim=1)
        return (pred == target).float().mean().item() * 100.0


def train(train_loader, model, criterion, optimizer, epoch):
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    model.train()
    for i, (images, target) in enumerate(train_loader):
        output = model(images)
        loss = criterion(output, target)

        # measure accuracy and record loss
        losses.update(loss, images.size(0))  # expect: GG301
        top1.update(accuracy(output, target), images.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 3 == 0:
            print(f"Epoch [{epoch}][{i}] {losses} {top1}")
    return losses, top1


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loader = [(torch.randn(8, 16), torch.randint(0, 4, (8,))) for _ in range(6)]
    losses, top1 = train(loader, model, criterion, optimizer, epoch=0)
    return losses


if __name__ == "__main__":
    meter = main()
    # ground truth: the meter's running sum still carries the autograd history of every batch
    assert isinstance(meter.sum, torch.Tensor)
    assert meter.sum.grad_fn is not None
    assert meter.avg.requires_grad
