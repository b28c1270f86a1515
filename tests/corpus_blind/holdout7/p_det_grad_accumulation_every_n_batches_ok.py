# corpus: YOLOv3-style detector trainer with gradient accumulation: backward every batch, optimizer.step() and zero_grad() together only every `gradient_accumulations` batches (correct)
# source: https://github.com/eriklindernoren/PyTorch-YOLOv3/pull/313
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyDarknet(nn.Module):
    def __init__(self, num_anchors=3, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.LeakyReLU(0.1),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.LeakyReLU(0.1),
        )
        self.head = nn.Conv2d(16, num_anchors * (5 + num_classes), 1)

    def forward(self, imgs, targets=None):
        out = self.head(self.backbone(imgs))
        if targets is None:
            return out
        loss = F.mse_loss(out, targets)
        return loss, out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--gradient_accumulations", type=int, default=2, help="number of gradient accums before step")
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = TinyDarknet()
    optimizer = torch.optim.Adam(model.parameters())
    dataloader = [(torch.randn(2, 3, 16, 16), torch.randn(2, 27, 4, 4)) for _ in range(4)]
    for epoch in range(args.epochs):
        model.train()
        for batch_i, (imgs, targets) in enumerate(dataloader):
            batches_done = len(dataloader) * epoch + batch_i
            loss, outputs = model(imgs, targets)
            loss.backward()
            if batches_done % args.gradient_accumulations == 0:
                # Accumulates gradient before each step
                optimizer.step()
                optimizer.zero_grad()
            print(epoch, batch_i, round(loss.item(), 4))


if __name__ == "__main__":
    main()
