# corpus: AlexNet-like features/classifier Sequentials use ReLU(inplace=True) after Conv2d/Linear, whose outputs are not saved for backward (correct)
# source: https://github.com/pytorch/vision/issues/5703
import torch
import torch.nn as nn


class MiniAlexNet(nn.Module):
    def __init__(self, num_classes=4, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout),
            nn.Linear(16 * 2 * 2, 32),
            nn.ReLU(inplace=True),
            nn.Dropout(p=dropout),
            nn.Linear(32, 32),
            nn.ReLU(inplace=True),
            nn.Linear(32, num_classes),
        )

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def run_epoch(model, loader, criterion, optimizer):
    model.train()
    running = 0.0
    for images, labels in loader:
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / len(loader)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = MiniAlexNet()
    loader = [(torch.randn(4, 3, 16, 16), torch.randint(0, 4, (4,))) for _ in range(3)]
    avg = run_epoch(model, loader, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
    # ground truth: backward succeeded, every parameter has a gradient, and the logged loss is a float
    assert isinstance(avg, float)
    assert all(p.grad is not None for p in model.parameters())
