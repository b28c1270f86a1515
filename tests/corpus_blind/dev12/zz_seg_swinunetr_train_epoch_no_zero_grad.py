# corpus: MONAI BTCV/Swin-UNETR style train_epoch with AverageMeter and DiceCE loss calls loss.backward(); optimizer.step() but never optimizer.zero_grad(), so every step applies the sum of all previous batches' gradients (silent; grad norm grows)
# source: https://github.com/Project-MONAI/research-contributions/issues/392
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)

device = torch.device("cpu")
batch_size = 2
max_epochs = 2


class AverageMeter(object):
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
        self.avg = np.where(self.count > 0, self.sum / self.count, self.sum)


class DiceCELoss(nn.Module):
    def __init__(self, smooth_nr=0.0, smooth_dr=1e-6):
        super().__init__()
        self.smooth_nr, self.smooth_dr = smooth_nr, smooth_dr

    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target)
        probs = logits.softmax(dim=1)
        onehot = F.one_hot(target, logits.shape[1]).permute(0, 4, 1, 2, 3).float()
        dims = (2, 3, 4)
        inter = (probs * onehot).sum(dims)
        denom = probs.sum(dims) + onehot.sum(dims)
        dice = 1.0 - (2.0 * inter + self.smooth_nr) / (denom + self.smooth_dr)
        return ce + dice.mean()


class TinySwinUNETR(nn.Module):
    def __init__(self, in_channels=1, out_channels=3, feature_size=4):
        super().__init__()
        self.enc1 = nn.Conv3d(in_channels, feature_size, 3, padding=1)
        self.enc2 = nn.Conv3d(feature_size, 2 * feature_size, 3, stride=2, padding=1)
        self.dec = nn.Conv3d(2 * feature_size, feature_size, 1)
        self.out = nn.Conv3d(2 * feature_size, out_channels, 1)

    def forward(self, x):
        e1 = F.leaky_relu(self.enc1(x))
        e2 = F.leaky_relu(self.enc2(e1))
        d = F.leaky_relu(self.dec(F.interpolate(e2, scale_factor=2, mode="nearest")))
        return self.out(torch.cat([d, e1], dim=1))


def get_loader(n_batches=4):
    loader = []
    for _ in range(n_batches):
        image = torch.randn(batch_size, 1, 8, 8, 8)
        label = (image[:, 0] > 0.5).long() + (image[:, 0] > 1.2).long()
        loader.append({"image": image, "label": label})
    return loader


def grad_norm(model):
    return sum(p.grad.norm().item() ** 2 for p in model.parameters() if p.grad is not None) ** 0.5


def train_epoch(model, loader, optimizer, epoch, loss_func):
    model.train()
    start_time = time.time()
    run_loss = AverageMeter()
    for idx, batch_data in enumerate(loader):
        data, target = batch_data["image"].to(device), batch_data["label"].to(device)
        logits = model(data)
        loss = loss_func(logits, target)
        loss.backward()  # expect: GG201
        optimizer.step()
        run_loss.update(loss.item(), n=batch_size)
        print(
            "Epoch {}/{} {}/{}".format(epoch, max_epochs, idx, len(loader)),
            "loss: {:.4f}".format(float(run_loss.avg)),
            "grad norm: {:.4f}".format(grad_norm(model)),
            "time {:.2f}s".format(time.time() - start_time),
        )
        start_time = time.time()
    return run_loss.avg


def val_epoch(model, loader, loss_func):
    model.eval()
    meter = AverageMeter()
    with torch.no_grad():
        for batch_data in loader:
            logits = model(batch_data["image"])
            meter.update(loss_func(logits, batch_data["label"]).item(), n=batch_size)
    return meter.avg


def trainer(model, train_loader, val_loader, optimizer, loss_func, scheduler):
    best = 1e9
    for epoch in range(max_epochs):
        train_loss = train_epoch(model, train_loader, optimizer, epoch, loss_func)
        val_loss = val_epoch(model, val_loader, loss_func)
        scheduler.step()
        best = min(best, float(val_loss))
        print("Final training  {}/{}".format(epoch, max_epochs - 1), "loss: {:.4f}".format(float(train_loss)),
              "val: {:.4f}".format(float(val_loss)))
    return best


def main():
    model = TinySwinUNETR().to(device)
    loss_func = DiceCELoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-5)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max_epochs)
    best = trainer(model, get_loader(), get_loader(2), optimizer, loss_func, scheduler)
    print("best val loss", round(best, 4))


if __name__ == "__main__":
    main()
