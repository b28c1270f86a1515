# corpus: face/digit embedding trainer with softmax + center loss, centers as an nn.Parameter stepped by their own optimizer after rescaling their gradient by 1/weight_cent (correct)
# source: https://github.com/KaiyangZhou/pytorch-center-loss/issues/7
import argparse

import torch
import torch.nn as nn


class CenterLoss(nn.Module):
    def __init__(self, num_classes=10, feat_dim=2):
        super().__init__()
        self.num_classes = num_classes
        self.feat_dim = feat_dim
        self.centers = nn.Parameter(torch.randn(num_classes, feat_dim))

    def forward(self, x, labels):
        batch_size = x.size(0)
        distmat = torch.pow(x, 2).sum(dim=1, keepdim=True).expand(batch_size, self.num_classes) + \
            torch.pow(self.centers, 2).sum(dim=1, keepdim=True).expand(self.num_classes, batch_size).t()
        distmat = distmat.addmm(x, self.centers.t(), beta=1, alpha=-2)
        classes = torch.arange(self.num_classes).long()
        labels = labels.unsqueeze(1).expand(batch_size, self.num_classes)
        mask = labels.eq(classes.expand(batch_size, self.num_classes))
        dist = distmat * mask.float()
        loss = dist.clamp(min=1e-12, max=1e12).sum() / batch_size
        return loss


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.PReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten())
        self.fc1 = nn.Linear(32, 2)
        self.prelu_fc1 = nn.PReLU()
        self.fc2 = nn.Linear(2, num_classes)

    def forward(self, x):
        x = self.prelu_fc1(self.fc1(self.body(x)))
        return x, self.fc2(x)


def train(model, criterion_xent, criterion_cent, optimizer_model, optimizer_centloss, trainloader, args):
    model.train()
    for batch_idx, (data, labels) in enumerate(trainloader):
        features, outputs = model(data)
        loss_xent = criterion_xent(outputs, labels)
        loss_cent = criterion_cent(features, labels)
        loss_cent *= args.weight_cent
        loss = loss_xent + loss_cent
        optimizer_model.zero_grad()
        optimizer_centloss.zero_grad()
        loss.backward()
        optimizer_model.step()
        # by doing so, weight_cent would not impact on the learning of centers
        for param in criterion_cent.parameters():
            param.grad.data *= (1. / args.weight_cent)
        optimizer_centloss.step()
        print(batch_idx, round(loss_xent.item(), 4), round(loss_cent.item(), 4))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr-model", type=float, default=0.001)
    parser.add_argument("--lr-cent", type=float, default=0.5)
    parser.add_argument("--weight-cent", type=float, default=1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = ConvNet()
    criterion_xent = nn.CrossEntropyLoss()
    criterion_cent = CenterLoss(num_classes=10, feat_dim=2)
    optimizer_model = torch.optim.SGD(model.parameters(), lr=args.lr_model, weight_decay=5e-04, momentum=0.9)
    optimizer_centloss = torch.optim.SGD(criterion_cent.parameters(), lr=args.lr_cent)
    trainloader = [(torch.randn(16, 1, 8, 8), torch.randint(0, 10, (16,))) for _ in range(3)]
    train(model, criterion_xent, criterion_cent, optimizer_model, optimizer_centloss, trainloader, args)


if __name__ == "__main__":
    main()
