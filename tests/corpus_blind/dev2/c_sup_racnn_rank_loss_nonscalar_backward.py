# corpus: RA-CNN Manager alternates class / rank epochs; the custom RankLoss returns an unreduced per-sample tensor and do_batch calls .backward() on it directly
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/dillondavis/RecurrentAttentionConvolutionalNeuralNetwork/issues/4
import torch
import torch.nn as nn
import torch.nn.functional as F


class RankLoss(nn.Module):
    def __init__(self, margin):
        super(RankLoss, self).__init__()
        self.margin = margin

    def forward(self, scores1, scores2, target):
        ps1 = F.softmax(scores1, dim=1).gather(1, target.long().view(-1, 1))
        ps2 = F.softmax(scores2, dim=1).gather(1, target.long().view(-1, 1))
        return torch.clamp(ps1 - ps2 + self.margin, min=0)  # also: GG109


class RACNN(nn.Module):
    """Two scales: the APN predicts a soft attention box used to re-weight the input for scale 2."""

    def __init__(self, num_classes=5):
        super().__init__()
        self.cnn1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.cnn2 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.fc1, self.fc2 = nn.Linear(128, num_classes), nn.Linear(128, num_classes)
        self.apn = nn.Sequential(nn.Linear(128, 16), nn.Tanh(), nn.Linear(16, 3), nn.Sigmoid())

    def forward(self, x):
        f1 = self.cnn1(x)
        tx, ty, tl = self.apn(f1).unbind(1)
        h = x.size(2)
        grid = torch.linspace(0, 1, h)
        mx = torch.sigmoid(10 * (grid[None] - (tx - tl / 2)[:, None])) - torch.sigmoid(10 * (grid[None] - (tx + tl / 2)[:, None]))
        my = torch.sigmoid(10 * (grid[None] - (ty - tl / 2)[:, None])) - torch.sigmoid(10 * (grid[None] - (ty + tl / 2)[:, None]))
        x2 = x * (my[:, None, :, None] * mx[:, None, None, :])
        return [self.fc1(f1), self.fc2(self.cnn2(x2))]


class Optimizers(object):
    def __init__(self):
        self.optimizers = []

    def add(self, optimizer):
        self.optimizers.append(optimizer)

    def step(self):
        for optimizer in self.optimizers:
            optimizer.step()


class Manager(object):
    def __init__(self, model, loader):
        self.model = model
        self.train_data_loader = loader
        self.criterion_class = nn.CrossEntropyLoss()
        self.criterion_rank = RankLoss(0.05)

    def do_batch(self, optimizer, batch, label, optimize_class=True):
        self.model.zero_grad()
        scores = self.model(batch)
        if optimize_class:
            for i in range(len(scores) - 1, -1, -1):
                retain_graph = i > 0
                self.criterion_class(scores[i], label).backward(retain_graph=retain_graph)
        else:
            for i in range(len(scores) - 1, 0, -1):
                retain_graph = (i - 1) > 0
                self.criterion_rank(scores[i - 1], scores[i], label).backward(retain_graph=retain_graph)  # expect: GG109
        optimizer.step()

    def do_epoch(self, epoch_idx, optimizer, optimize_class=True):
        for batch, label in self.train_data_loader:
            self.do_batch(optimizer, batch, label, optimize_class=optimize_class)

    def train(self, epochs, cnn_optimizer, apn_optimizer):
        optimize_class = True
        for i in range(epochs):
            epoch_type = 'Class' if optimize_class else 'Rank'
            print('Epoch {}: optimize {}'.format(i + 1, epoch_type))
            optimizer = cnn_optimizer if optimize_class else apn_optimizer
            self.model.train()
            self.do_epoch(i, optimizer, optimize_class=optimize_class)
            optimize_class = not optimize_class


def main():
    torch.manual_seed(0)
    model = RACNN()
    cnn_optimizer, apn_optimizer = Optimizers(), Optimizers()
    cnn_params = [p for n, p in model.named_parameters() if not n.startswith('apn')]
    cnn_optimizer.add(torch.optim.SGD(cnn_params, lr=0.01, momentum=0.9))
    apn_optimizer.add(torch.optim.SGD(model.apn.parameters(), lr=1e-3, momentum=0.9))
    loader = [(torch.rand(4, 3, 16, 16), torch.randint(0, 5, (4,))) for _ in range(3)]
    Manager(model, loader).train(2, cnn_optimizer, apn_optimizer)


if __name__ == "__main__":
    main()
