# corpus: tiny ResNet with torchvision-style BasicBlock (out += identity, ReLU(inplace=True) after BatchNorm)
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, planes: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        out += identity
        out = self.relu(out)
        return out


class TinyResNet(nn.Module):
    def __init__(self, n_classes: int = 3) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(inplace=True))
        self.layer1 = nn.Sequential(BasicBlock(4), BasicBlock(4))
        self.fc = nn.Linear(4, n_classes)

    def forward(self, x):
        x = self.layer1(self.stem(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


torch.manual_seed(0)
net = TinyResNet()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
images = torch.randn(4, 1, 8, 8)
labels = torch.randint(0, 3, (4,))

for epoch in range(2):
    optimizer.zero_grad()
    loss = F.cross_entropy(net(images), labels)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
