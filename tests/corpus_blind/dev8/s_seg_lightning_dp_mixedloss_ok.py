# corpus: Lightning-style segmentation module (U-Net + MixedLoss focal/dice) driven by a small hand-written DataParallel-like loop: per-replica scalar losses are gathered into a vector and training_step_end reduces it with .mean() before backward; metrics logged with .item() (correct)
# source: https://github.com/marshuang80/gloria/issues/19
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0):
        super().__init__()
        self.gamma = gamma

    def forward(self, logits, target):
        max_val = (-logits).clamp(min=0)
        loss = logits - logits * target + max_val + ((-max_val).exp() + (-logits - max_val).exp()).log()
        invprobs = F.logsigmoid(-logits * (target * 2.0 - 1.0))
        loss = (invprobs * self.gamma).exp() * loss
        return loss.mean()


def dice_loss(logits, target, smooth=1.0):
    probs = torch.sigmoid(logits).flatten(1)
    target = target.flatten(1)
    inter = (probs * target).sum(1)
    return 1 - ((2.0 * inter + smooth) / (probs.sum(1) + target.sum(1) + smooth)).mean()


class MixedLoss(nn.Module):
    def __init__(self, alpha=10.0, gamma=2.0):
        super().__init__()
        self.alpha = alpha
        self.focal = FocalLoss(gamma)

    def forward(self, logits, target):
        return self.alpha * self.focal(logits, target) + dice_loss(logits, target)


class Unet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.dec = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(8, 1, 3, padding=1))

    def forward(self, x):
        return self.dec(self.enc(x))


class SegmentationModel(nn.Module):
    def __init__(self, lr=1e-3):
        super().__init__()
        self.model = Unet()
        self.loss = MixedLoss()
        self.lr = lr
        self.logged = {}

    def configure_optimizers(self):
        return torch.optim.Adam(self.model.parameters(), lr=self.lr)

    def log(self, name, value):
        self.logged.setdefault(name, []).append(value)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logit = self.model(x)
        return {"loss": self.loss(logit, y)}

    def training_step_end(self, step_outputs):
        loss = step_outputs["loss"].mean()
        self.log("train_loss", loss.item())
        return loss


def data_parallel_step(module, batch, batch_idx, n_replicas=2):
    x, y = batch
    outs = [module.training_step((xs, ys), batch_idx) for xs, ys in zip(x.chunk(n_replicas), y.chunk(n_replicas))]
    return {"loss": torch.stack([o["loss"] for o in outs])}


def fit(module, max_epochs, batches_per_epoch):
    optimizer = module.configure_optimizers()
    for epoch in range(max_epochs):
        for batch_idx in range(batches_per_epoch):
            x = torch.randn(4, 1, 16, 16)
            y = (torch.rand(4, 1, 16, 16) > 0.8).float()
            out = data_parallel_step(module, (x, y), batch_idx)
            loss = module.training_step_end(out)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} train_loss {module.logged['train_loss'][-1]:.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max_epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    module = SegmentationModel(args.lr)
    fit(module, args.max_epochs, batches_per_epoch=2)
    assert module.model.enc[0].weight.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
