# corpus: segmentation validate() collects predictions with .cpu().numpy() for an IoU confusion matrix, all inside torch.no_grad() (correct)
# source: https://github.com/samleoqh/MSCG-Net/issues/34
import numpy as np
import torch
import torch.nn as nn


class AverageMeter:
    def __init__(self):
        self.sum, self.count, self.avg = 0.0, 0, 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class SegHead(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, n_classes, 1))

    def forward(self, x):
        return self.body(x)


def evaluate(predictions, gts, num_classes):
    hist = np.zeros((num_classes, num_classes))
    for lp, lt in zip(predictions, gts):
        mask = (lt >= 0) & (lt < num_classes)
        hist += np.bincount(num_classes * lt[mask].astype(int) + lp[mask], minlength=num_classes ** 2).reshape(num_classes, num_classes)
    iu = np.diag(hist) / (hist.sum(axis=1) + hist.sum(axis=0) - np.diag(hist) + 1e-10)
    return np.diag(hist).sum() / hist.sum(), np.nanmean(iu)


def train_epoch(net, loader, criterion, optimizer):
    net.train()
    train_loss = AverageMeter()
    for inputs, gts in loader:
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, gts)
        loss.backward()
        optimizer.step()
        train_loss.update(loss.item(), inputs.size(0))
    return train_loss.avg


def validate(net, val_loader, criterion, num_classes):
    net.eval()
    val_loss = AverageMeter()
    inputs_all, gts_all, predictions_all = [], [], []
    with torch.no_grad():
        for vi, (inputs, gts) in enumerate(val_loader):
            N = inputs.size(0) * inputs.size(2) * inputs.size(3)
            outputs = net(inputs)
            val_loss.update(criterion(outputs, gts).item(), N)
            inputs_all.append(inputs.squeeze(0).cpu())
            gts_all.append(gts.squeeze(0).cpu().numpy())
            predictions = outputs.max(1)[1].squeeze(1).squeeze(0).cpu().numpy()
            predictions_all.append(predictions)
            probs = torch.softmax(outputs, dim=1).cpu().numpy()
            assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    acc, mean_iu = evaluate(predictions_all, gts_all, num_classes)
    net.train()
    return val_loss.avg, acc, mean_iu, predictions_all


def main():
    torch.manual_seed(0)
    num_classes = 4
    net = SegHead(num_classes)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    train_loader = [(torch.randn(2, 3, 8, 8), torch.randint(0, num_classes, (2, 8, 8))) for _ in range(3)]
    val_loader = [(torch.randn(1, 3, 8, 8), torch.randint(0, num_classes, (1, 8, 8))) for _ in range(2)]
    for epoch in range(2):
        tr = train_epoch(net, train_loader, criterion, optimizer)
        vl, acc, miou, preds = validate(net, val_loader, criterion, num_classes)
        print(epoch, round(tr, 4), round(vl, 4), round(float(acc), 3), round(float(miou), 3))
    return net, preds


if __name__ == "__main__":
    net, preds = main()
    assert all(p.grad is not None for p in net.parameters())
    assert all(isinstance(p, np.ndarray) for p in preds)
