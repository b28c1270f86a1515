# corpus: ResNet adapted to 1-channel MNIST; the training loop clears gradients with model.zero_grad() (equivalent to optimizer.zero_grad() since the optimizer owns all model parameters), logs loss.item(), and the validation loss is summed under torch.no_grad() (correct)
# source: https://github.com/marrrcin/pytorch-resnet-mnist/issues/2
import torch
from torch import nn
from torch.optim import Adadelta


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000):
        super().__init__()
        self.inplanes = 16
        self.conv1 = nn.Conv2d(3, 16, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self._make_layer(block, 16, layers[0])
        self.layer2 = self._make_layer(block, 32, layers[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        layers = [block(self.inplanes, planes, stride)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class MnistResNet(ResNet):
    def __init__(self):
        super().__init__(BasicBlock, [1, 1], num_classes=10)
        self.conv1 = torch.nn.Conv2d(1, 16, kernel_size=7, stride=2, padding=3, bias=False)

    def forward(self, x):
        return torch.softmax(super().forward(x), dim=-1)


def calculate_accuracy(y, predicted):
    return (y == predicted).float().mean().item()


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    epochs = 2
    train_loader = [(torch.randn(8, 1, 28, 28), torch.randint(0, 10, (8,))) for _ in range(3)]
    val_loader = [(torch.randn(8, 1, 28, 28), torch.randint(0, 10, (8,)))]

    model = MnistResNet().to(device)
    loss_function = nn.CrossEntropyLoss()
    optimizer = Adadelta(model.parameters())

    batches = len(train_loader)
    val_batches = len(val_loader)
    for epoch in range(epochs):
        total_loss = 0
        model.train()
        for i, data in enumerate(train_loader):
            X, y = data[0].to(device), data[1].to(device)
            model.zero_grad()
            outputs = model(X)
            loss = loss_function(outputs, y)
            loss.backward()
            optimizer.step()
            current_loss = loss.item()
            total_loss += current_loss

        val_losses = 0
        accuracy = []
        model.eval()
        with torch.no_grad():
            for i, data in enumerate(val_loader):
                X, y = data[0].to(device), data[1].to(device)
                outputs = model(X)
                val_losses += loss_function(outputs, y)
                predicted_classes = torch.max(outputs, 1)[1]
                accuracy.append(calculate_accuracy(y.cpu(), predicted_classes.cpu()))
        print(f"Epoch {epoch + 1}/{epochs}, training loss: {total_loss / batches:.4f}, "
              f"validation loss: {val_losses.item() / val_batches:.4f}, accuracy: {sum(accuracy) / val_batches:.4f}")


if __name__ == "__main__":
    main()
