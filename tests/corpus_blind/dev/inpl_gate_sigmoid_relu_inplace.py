# corpus: channel-attention gate built as Sequential(..., Sigmoid(), ReLU(inplace=True)); the in-place ReLU overwrites the sigmoid output that SigmoidBackward needs
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://www.yongfengli.tk/2018/04/13/inplace-operation-in-pytorch.html
import torch
import torch.nn as nn


class ChannelGate(nn.Module):
    def __init__(self, channels, reduction=4):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.mlp = nn.Sequential(
            nn.Linear(channels, channels // reduction),
            nn.ReLU(inplace=True),
            nn.Linear(channels // reduction, channels),
            nn.Sigmoid(),
            nn.ReLU(inplace=True),  # expect: GG107
        )

    def forward(self, x):
        b, c, _, _ = x.shape
        w = self.mlp(self.pool(x).view(b, c))
        return x * w.view(b, c, 1, 1)


class GatedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.gate = ChannelGate(16)
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        h = torch.relu(self.stem(x))
        h = self.gate(h)
        return self.head(h.mean(dim=(2, 3)))


def train_step(model, opt, images, labels):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()  # also: GG107
    opt.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = GatedEncoder()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    images = torch.randn(4, 3, 8, 8)
    labels = torch.randint(0, 5, (4,))
    for _ in range(2):
        train_step(model, opt, images, labels)


if __name__ == "__main__":
    main()
