# corpus: federated-style training plan whose validation routine runs the model without torch.no_grad and converts the custom metric list (losses still carrying grad) with .numpy()
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad.
# source: https://github.com/fedbiomed/fedbiomed/issues/407
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 4)
        return F.log_softmax(self.fc(x.flatten(1)), dim=1)


class TrainingPlan:
    def __init__(self):
        self.model = Net()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def training_step(self, data, target):
        output = self.model(data)
        return F.nll_loss(output, target)

    def testing_step(self, data, target):
        output = self.model(data)
        loss = F.nll_loss(output, target)
        acc = (output.argmax(1) == target).float().mean()
        return [loss, loss, acc]

    def train_round(self, loader):
        self.model.train()
        for data, target in loader:
            self.optimizer.zero_grad()
            loss = self.training_step(data, target)
            loss.backward()
            self.optimizer.step()

    def validate(self, loader):
        self.model.eval()
        rows = []
        for batch_idx, (data, target) in enumerate(loader):
            metric = self.testing_step(data, target)
            rows.append([m.numpy() for m in metric])  # expect: GG110
            print(f"Validation: Batch {batch_idx + 1}/{len(loader)} | Metric[Custom]: {metric}")
        return np.mean(np.array(rows), axis=0)


def make_loader(n=2, bs=8):
    return [(torch.randn(bs, 1, 28, 28), torch.randint(0, 10, (bs,))) for _ in range(n)]


def main():
    torch.manual_seed(0)
    plan = TrainingPlan()
    for rnd in range(2):
        plan.train_round(make_loader())
        print("round", rnd, plan.validate(make_loader(1)))


if __name__ == "__main__":
    main()
