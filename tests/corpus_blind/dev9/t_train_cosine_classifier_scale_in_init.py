# corpus: cosine-softmax classifier computes its scale exp(log_scale) once in __init__ and reuses that graph-bearing tensor in every forward, so the second training step backpropagates through the freed exp node
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/IceLab-X/MiniGP/issues/13
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class CosineClassifier(nn.Module):
    def __init__(self, in_dim, n_classes, init_scale=10.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_classes, in_dim) * 0.1)
        self.log_scale = nn.Parameter(torch.tensor(math.log(init_scale)))
        self.scale = torch.exp(self.log_scale)  # expect: GG103

    def forward(self, feats):
        cos = F.normalize(feats, dim=1) @ F.normalize(self.weight, dim=1).t()
        return self.scale * cos  # also: GG103


class Backbone(nn.Module):
    def __init__(self, in_dim=20, feat_dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, feat_dim))

    def forward(self, x):
        return self.net(x)


class Learner:
    def __init__(self, n_classes=5):
        self.backbone = Backbone()
        self.classifier = CosineClassifier(16, n_classes)
        params = list(self.backbone.parameters()) + list(self.classifier.parameters())
        self.optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9)
        self.criterion = nn.CrossEntropyLoss()

    def train_step(self, x, y):
        logits = self.classifier(self.backbone(x))
        loss = self.criterion(logits, y)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG103
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    learner = Learner()
    for epoch in range(2):
        for _ in range(3):
            x, y = torch.randn(16, 20), torch.randint(0, 5, (16,))
            loss = learner.train_step(x, y)
        print(f"epoch {epoch} loss {loss:.4f}")


if __name__ == "__main__":
    main()
