# corpus: fully convolutional segmentation trainer with a per-pixel NLLLoss(reduce=False) so that an ignore mask could be applied later; the unreduced (N, H, W) loss map is passed straight to backward()
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/pytorch/pytorch/issues/6166
import argparse

import torch
import torch.nn as nn


class TinyFCN(nn.Module):
    def __init__(self, in_ch=3, num_classes=4):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_ch, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 16, 3, padding=1, stride=2), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
        )
        self.classifier = nn.Conv2d(16, num_classes, 1)
        self.upsample = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)

    def forward(self, x):
        return self.upsample(self.classifier(self.encoder(x)))


class SegTrainer:
    def __init__(self, model, lr):
        self.model = model
        self.logsoftmax = nn.LogSoftmax(dim=1)
        self.criterion = nn.NLLLoss(reduce=False)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    def train_step(self, images, labels):
        self.model.train()
        outputs = self.model(images)
        outputs = self.logsoftmax(outputs)
        loss = self.criterion(outputs, labels)
        self.optimizer.zero_grad()
        loss.backward()  # expect: GG109
        self.optimizer.step()
        return loss.mean().item()

    def pixel_accuracy(self, images, labels):
        self.model.eval()
        with torch.no_grad():
            pred = self.model(images).argmax(dim=1)
        return (pred == labels).float().mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])

    torch.manual_seed(0)
    trainer = SegTrainer(TinyFCN(), args.lr)
    batches = [(torch.randn(2, 3, 16, 16), torch.randint(0, 4, (2, 16, 16))) for _ in range(2)]
    for epoch in range(args.epochs):
        for images, labels in batches:
            loss = trainer.train_step(images, labels)
        print(f"epoch {epoch} loss {loss:.4f} pixel acc {trainer.pixel_accuracy(*batches[0]):.3f}")


if __name__ == "__main__":
    main()
