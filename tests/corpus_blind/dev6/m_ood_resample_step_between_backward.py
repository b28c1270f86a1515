# corpus: background-resampling OOD trainer: the classifier loss is backpropagated with retain_graph=True, the classifier optimizer steps, then the resampling-weight loss built on the same forward is backpropagated through the stepped weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/JerryYLi/bg-resample-ood/issues/1
import argparse
from itertools import cycle

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


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].reshape(-1).float().sum().item() / target.size(0) for k in topk]


class OODLoss(nn.Module):
    """Pushes the softmax of background samples towards uniform, weighted per sample."""

    def forward(self, outputs, weights):
        uniform_ce = -(outputs.log_softmax(dim=1)).mean(dim=1)
        return (weights * uniform_ce).mean()


class WideNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.fc(self.body(x))


def train_epoch_resample(epoch, loader1, loader2, weight_params, model, loss2, optimizer, optimizer_w, scheduler, args):
    model.train()
    losses = AverageMeter()
    losses_w = AverageMeter()
    accs = [AverageMeter() for _ in args.topk]
    for i, (inputs, targets) in enumerate(loader1):
        N = inputs.size(0)
        indices, inputs2, _ = next(loader2)
        inputs = torch.cat((inputs, inputs2), 0)

        # resampling weights
        w = F.softplus(weight_params)
        scale = (w ** .5).mean() / (w.mean() ** .5)
        weights = scale * (w[indices] / w.mean()) ** .5

        # forward
        outputs = model(inputs)
        loss = F.cross_entropy(outputs[:N], targets)
        loss_ood = loss2(outputs[N:], weights)
        loss += loss_ood
        losses.update(loss.item(), inputs.size(0))
        loss_w = -loss_ood
        losses_w.update(loss_w.item(), inputs.size(0))

        # evaluate
        acc = accuracy(outputs[:N], targets, args.topk)
        for j in range(len(accs)):
            accs[j].update(acc[j], inputs.size(0))

        # backward
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()  # expect: GG111
        optimizer_w.zero_grad()
        loss_w.backward()  # also: GG111
        optimizer_w.step()

    if scheduler is not None:
        scheduler.step()
    print("Epoch {:d}\tTrain loss {:.3f}\tloss_w = {:.3f}".format(epoch, losses.avg, losses_w.avg))
    return losses.avg, [a.avg for a in accs]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--lr-w", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args([])
    args.topk = (1, 5)

    torch.manual_seed(0)
    num_bg = 32
    in_loader = [(torch.randn(8, 3, 8, 8), torch.randint(0, 10, (8,))) for _ in range(3)]
    bg_loader = cycle([(torch.randint(0, num_bg, (8,)), torch.randn(8, 3, 8, 8), None) for _ in range(3)])

    model = WideNet()
    weight_params = nn.Parameter(torch.zeros(num_bg))
    loss2 = OODLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    optimizer_w = torch.optim.SGD([weight_params], lr=args.lr_w)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(args.epochs):
        train_epoch_resample(epoch, in_loader, bg_loader, weight_params, model, loss2, optimizer, optimizer_w, scheduler, args)


if __name__ == "__main__":
    main()
