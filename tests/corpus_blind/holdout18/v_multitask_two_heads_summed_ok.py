# corpus: A shared-trunk network with a classification head and a regression head computes both losses from one forward pass and backpropagates their weighted sum once per step; this is fine.
# source: https://stackoverflow.com/questions/58979506/optimizing-a-neural-network-with-a-multi-task-objective-in-pytorch
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class TaskWeights:
    obj1: float = 1.0
    obj2: float = 0.5


class Net(nn.Module):
    def __init__(self, n_classes=5):
        super(Net, self).__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.linear = nn.Linear(32, 64)
        self.obj1 = nn.Linear(64, n_classes)
        self.obj2 = nn.Linear(64, 1)

    def forward(self, inputs):
        out = torch.relu(self.linear(self.trunk(inputs)))
        out_obj1 = self.obj1(out)
        out_obj2 = self.obj2(out)
        return out_obj1, out_obj2


class MultiTaskTrainer(object):
    def __init__(self, model, weights, lr=1e-3):
        self.model = model
        self.weights = weights
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion1 = nn.CrossEntropyLoss()
        self.criterion2 = nn.MSELoss()

    def compute_losses(self, batch):
        images, labels, targets = batch
        out1, out2 = self.model(images)
        return {
            "obj1": self.criterion1(out1, labels),
            "obj2": self.criterion2(out2.squeeze(1), targets),
        }

    def step(self, batch):
        self.optimizer.zero_grad()
        losses = self.compute_losses(batch)
        total_loss = self.weights.obj1 * losses["obj1"] + self.weights.obj2 * losses["obj2"]
        total_loss.backward()
        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()}, total_loss.item()


def batches(n, bs=8):
    for _ in range(n):
        yield torch.randn(bs, 3, 16, 16), torch.randint(0, 5, (bs,)), torch.randn(bs)


def main():
    torch.manual_seed(0)
    trainer = MultiTaskTrainer(Net(), TaskWeights())
    for epoch in range(2):
        for i, batch in enumerate(batches(3)):
            parts, total = trainer.step(batch)
            print(epoch, i, parts, round(total, 4))


if __name__ == "__main__":
    main()
