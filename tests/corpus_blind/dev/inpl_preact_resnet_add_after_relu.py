# corpus: pre-activation residual block applies relu then does `out += identity` in place, overwriting the ReLU result its backward needs
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pytorch/vision/issues/807
import torch
import torch.nn as nn
import torch.nn.functional as F


class PreActBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.relu = nn.ReLU()

    def forward(self, x):
        identity = x
        out = self.conv1(self.relu(self.bn1(x)))
        out = self.conv2(self.bn2(out))
        out = self.relu(out)
        out += identity  # expect: GG107
        return out


class TinyPreActNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.layers = nn.ModuleList([PreActBlock(8) for _ in range(2)])
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = self.stem(x)
        for block in self.layers:
            x = block(x)
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        self.history = []

    def fit_batch(self, x, y):
        self.model.train()
        self.opt.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()  # also: GG107
        self.opt.step()
        self.history.append(loss.item())


def main():
    torch.manual_seed(0)
    trainer = Trainer(TinyPreActNet())
    x = torch.randn(4, 3, 8, 8)
    y = torch.randint(0, 10, (4,))
    for _ in range(3):
        trainer.fit_batch(x, y)


if __name__ == "__main__":
    main()
