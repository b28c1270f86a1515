# corpus: small ResNet-style classifier whose residual unit does x += residual on the tensor conv_1 saved as its input, so backward finds it modified
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: http://discuss.pytorch.org/t/in-place-operation-and-resnet/10724
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

history = {"loss": [], "acc": []}


class ResidualUnitA(nn.Module):
    def __init__(self, channels=8):
        super(ResidualUnitA, self).__init__()
        self.conv_0 = nn.Conv2d(3, channels, 3, padding=1, bias=False)
        self.bn_0 = nn.BatchNorm2d(channels)
        self.conv_1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn_1 = nn.BatchNorm2d(channels)

    def forward(self, x):
        x = self.conv_0(x)
        x = self.bn_0(x)
        x = F.relu(x, inplace=True)

        residual = self.conv_1(x)
        residual = self.bn_1(residual)
        x += residual  # expect: GG107
        x = F.relu(x, inplace=True)
        return x


class TinyResNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.block = ResidualUnitA(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, n_classes)

    def forward(self, x):
        x = self.block(x)
        x = self.pool(x).flatten(1)
        return self.fc(x)


def train(model, loader, optimizer, criterion, epochs=2):
    for epoch in range(epochs):
        model.train()
        correct, total = 0, 0
        for images, labels in loader:
            optimizer.zero_grad()
            outputs = model(images)
            loss = criterion(outputs, labels)
            loss.backward()  # also: GG107
            optimizer.step()
            history["loss"].append(loss.item())
            correct += (outputs.argmax(1) == labels).sum().item()
            total += labels.size(0)
        history["acc"].append(correct / total)
        print("epoch", epoch, "acc", correct / total)


def main():
    images = torch.randn(24, 3, 8, 8)
    labels = torch.randint(0, 4, (24,))
    loader = [(images[i:i + 8], labels[i:i + 8]) for i in range(0, 24, 8)]
    model = TinyResNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    train(model, loader, optimizer, criterion)


if __name__ == "__main__":
    main()
