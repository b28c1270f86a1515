# corpus: image-compression train_one_epoch feeds the criterion's loss tensors (still holding their graphs) into AverageMeter.update, whose running sum chains every step's graph
# source: https://github.com/lyq133/LIC-HPCM/issues/4
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    """Compute running average."""

    def __init__(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class TinyCompressor(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.g_a = nn.Sequential(nn.Conv2d(3, c, 3, stride=2, padding=1), nn.GELU(), nn.Conv2d(c, c, 3, padding=1))
        self.g_s = nn.Sequential(nn.ConvTranspose2d(c, c, 4, stride=2, padding=1), nn.GELU(), nn.Conv2d(c, 3, 3, padding=1))
        self.scale = nn.Parameter(torch.ones(1, c, 1, 1))

    def forward(self, x):
        y = self.g_a(x)
        y_hat = y + (torch.rand_like(y) - 0.5)  # additive-noise quantisation proxy
        likelihoods = torch.sigmoid((y_hat + 0.5) / self.scale) - torch.sigmoid((y_hat - 0.5) / self.scale)
        return {"x_hat": self.g_s(y_hat), "likelihoods": {"y": likelihoods.clamp_min(1e-9)}}


class RateDistortionLoss(nn.Module):
    def __init__(self, lmbda=0.01):
        super().__init__()
        self.lmbda = lmbda

    def forward(self, output, target):
        n, _, h, w = target.size()
        num_pixels = n * h * w
        out = {}
        out["bpp_loss"] = sum(torch.log(l).sum() / (-math.log(2) * num_pixels) for l in output["likelihoods"].values())
        out["mse_loss"] = F.mse_loss(output["x_hat"], target)
        out["loss"] = self.lmbda * 255 ** 2 * out["mse_loss"] + out["bpp_loss"]
        return out


def train_one_epoch(model, criterion, train_dataloader, optimizer, epoch, clip_max_norm=1.0):
    model.train()
    loss = AverageMeter()
    bpp_loss = AverageMeter()
    mse_loss = AverageMeter()

    for i, d in enumerate(train_dataloader):
        optimizer.zero_grad()
        out_net = model(d)
        out_criterion = criterion(out_net, d)
        out_criterion["loss"].backward()
        if clip_max_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_max_norm)
        optimizer.step()

        loss.update(out_criterion["loss"])  # expect: GG301
        bpp_loss.update(out_criterion["bpp_loss"])  # also: GG301
        mse_loss.update(out_criterion["mse_loss"])  # also: GG301

        if i % 2 == 0:
            print(f"Train epoch {epoch}: [{i}/{len(train_dataloader)}]"
                  f"\tLoss: {loss.avg:.3f} |\tMSE loss: {mse_loss.avg:.4f} |\tBpp loss: {bpp_loss.avg:.3f}")
    return loss


def main():
    torch.manual_seed(0)
    model = TinyCompressor()
    criterion = RateDistortionLoss(lmbda=0.0018)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    train_dataloader = [torch.rand(2, 3, 16, 16) for _ in range(6)]
    for epoch in range(2):
        meter = train_one_epoch(model, criterion, train_dataloader, optimizer, epoch)
        print(f"epoch {epoch} avg loss {float(meter.avg):.3f}")


if __name__ == "__main__":
    main()
