# corpus: fine-tuner freezes only the pretrained feature extractor, replaces the fc head and optimizes the params that still require grad (correct)
# source: https://github.com/Spandan-Madan/Pytorch_fine_tuning_Tutorial/issues/8
import copy

import torch
import torch.nn as nn


class PretrainedNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten()
        )
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.fc(self.features(x))


class FineTuner:
    def __init__(self, model, num_classes, lr=1e-2, feature_extract=True):
        self.model = model
        if feature_extract:
            self.set_parameter_requires_grad(self.model.features)
        self.model.fc = nn.Linear(self.model.fc.in_features, num_classes)
        params_to_update = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.SGD(params_to_update, lr=lr, momentum=0.9)
        self.criterion = nn.CrossEntropyLoss()

    @staticmethod
    def set_parameter_requires_grad(module):
        for param in module.parameters():
            param.requires_grad = False

    def train_model(self, dataloaders, num_epochs=2):
        best_acc = 0.0
        for epoch in range(num_epochs):
            for phase in ["train", "val"]:
                self.model.train(phase == "train")
                running_corrects = 0
                total = 0
                for inputs, labels in dataloaders[phase]:
                    with torch.set_grad_enabled(phase == "train"):
                        outputs = self.model(inputs)
                        loss = self.criterion(outputs, labels)
                        if phase == "train":
                            self.optimizer.zero_grad()
                            loss.backward()
                            self.optimizer.step()
                    running_corrects += (outputs.argmax(1) == labels).sum().item()
                    total += labels.numel()
                if phase == "val":
                    best_acc = max(best_acc, running_corrects / total)
        return best_acc


def main():
    torch.manual_seed(0)
    model = PretrainedNet(num_classes=10)
    pretrained_features = copy.deepcopy(model.features.state_dict())
    tuner = FineTuner(model, num_classes=2)
    data = {
        "train": [(torch.randn(4, 3, 8, 8), torch.randint(0, 2, (4,))) for _ in range(3)],
        "val": [(torch.randn(4, 3, 8, 8), torch.randint(0, 2, (4,))) for _ in range(1)],
    }
    tuner.train_model(data)
    return tuner.model, pretrained_features


if __name__ == "__main__":
    model, pretrained_features = main()
    assert all(p.grad is not None for p in model.fc.parameters())
    assert all(p.grad is None for p in model.features.parameters())
    now = model.features.state_dict()
    assert all(torch.equal(now[k], v) for k, v in pretrained_features.items() if k.endswith(("weight", "bias")))
