# corpus: MASSL-style multi-task segmentation trainer: one forward through a shared encoder feeds a segmentation and a reconstruction decoder; the seg loss is backpropagated with retain_graph=True and optimizer[0].step() runs before the reconstruction loss is backpropagated through the same graph
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/ShuaiChenBIGR/MASSL-segmentation-framework/issues/1
from dataclasses import dataclass

import torch
import torch.nn as nn


class DiceCoefficientLF(nn.Module):
    def forward(self, pred, target, eps=1.0):
        inter = (pred * target).sum()
        return 1.0 - (2.0 * inter + eps) / (pred.sum() + target.sum() + eps)


def conv_block(in_ch, out_ch):
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU())


class MASSL(nn.Module):
    """Shared encoder, a segmentation decoder and a (background/foreground) reconstruction decoder."""

    def __init__(self, in_ch=1, base=4):
        super().__init__()
        self.encoder = nn.Sequential(conv_block(in_ch, base), conv_block(base, base * 2))
        self.decoder_seg = nn.Sequential(conv_block(base * 2, base), nn.Conv2d(base, 1, 1), nn.Sigmoid())
        self.decoder_rec = nn.Sequential(conv_block(base * 2, base), nn.Conv2d(base, 2, 1))

    def forward(self, x):
        feats = self.encoder(x)
        return self.decoder_seg(feats), self.decoder_rec(feats)


@dataclass
class Sample:
    image: torch.Tensor
    mask: torch.Tensor


class MASSLTrainer:
    def __init__(self, model, criterion, optimizer, loss_weighted=True):
        self.model = model
        self.criterion = criterion  # (dice, mse)
        self.optimizer = optimizer  # (seg optimizer, rec optimizer)
        self.loss_weighted = loss_weighted

    def compute_losses(self, sample):
        outputsL, outputsU = self.model(sample.image)
        outputsU_back = outputsU[:, 0:1]
        outputsU_fore = outputsU[:, 1:2]
        labels_back = (1.0 - outputsL) * sample.image
        labels_fore = outputsL * sample.image
        w2, w3 = 0.5, 0.5
        if self.loss_weighted:
            w2 = torch.sum(1.0 - outputsL)
            w3 = torch.sum(outputsL)
            total = w2 + w3
            w2, w3 = w2 / total, w3 / total
        seg_loss = self.criterion[0](outputsL, sample.mask)
        rec_loss = w2 * self.criterion[1](outputsU_back, labels_back) + \
            w3 * self.criterion[1](outputsU_fore, labels_fore)
        return {"seg": seg_loss, "rec": rec_loss}

    def train_step(self, sample):
        self.model.train()
        self.optimizer[0].zero_grad()
        self.optimizer[1].zero_grad()
        losses = self.compute_losses(sample)
        losses["seg"].backward(retain_graph=True)  # also: GG111
        self.optimizer[0].step()  # expect: GG111
        losses["rec"].backward()  # also: GG111
        self.optimizer[1].step()
        return {k: v.item() for k, v in losses.items()}

    def train(self, samples, num_epochs):
        for epoch in range(num_epochs):
            logs = [self.train_step(s) for s in samples]
            print(f"epoch {epoch}: TSL={sum(l['seg'] for l in logs) / len(logs):.4f} "
                  f"TUL={sum(l['rec'] for l in logs) / len(logs):.4f}")


def main():
    torch.manual_seed(0)
    model = MASSL()
    criterion = (DiceCoefficientLF(), nn.MSELoss())
    optimizer = (torch.optim.Adam(model.parameters(), lr=1e-2),
                 torch.optim.Adam(model.parameters(), lr=1e-3))
    samples = [Sample(torch.rand(2, 1, 8, 8), (torch.rand(2, 1, 8, 8) > 0.7).float()) for _ in range(3)]
    trainer = MASSLTrainer(model, criterion, optimizer)
    trainer.train(samples, num_epochs=2)


if __name__ == "__main__":
    main()
