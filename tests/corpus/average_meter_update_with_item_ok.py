# corpus: the same AverageMeter updated with loss.item() (correct)
import torch
import torch.nn as nn

torch.manual_seed(0)


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train_one_epoch(model, optimizer, batches):
    meter = AverageMeter()
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.update(loss.item(), x.shape[0])
    return float(meter.avg)


model = nn.Linear(4, 1)
train_one_epoch(model, torch.optim.SGD(model.parameters(), lr=0.1), [(torch.randn(8, 4), torch.randn(8, 1))] * 3)
