# corpus: torchbearer-style Trial (trial.py) feeds the training predictions to an epoch-level RocAucScore metric (metrics.py) that concatenates them with their graphs (second bug, GG301) and calls y_pred.cpu().numpy() on them
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/pytorchbearer/torchbearer/issues/424
import torch
import torch.nn as nn

from metrics import Loss, RocAucScore
from trial import Trial


class SimpleNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.convs = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.classifier(self.convs(x).flatten(1))


def main():
    torch.manual_seed(0)
    num_classes = 4
    model = SimpleNet(num_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = [(torch.rand(8, 1, 8, 8), torch.arange(8) % num_classes) for _ in range(3)]
    trial = Trial(model, optimizer, nn.CrossEntropyLoss(),
                  metrics=[Loss(), RocAucScore(one_hot_classes=num_classes)])
    trial.with_train_generator(data).run(epochs=2)  # also: GG110


if __name__ == "__main__":
    main()
