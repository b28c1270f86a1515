# corpus: deep metric learning trainer: WeightLoss returns (mean_pos_sim, mean_neg_sim, prec, loss) with the first entries made by .item(), but train() unpacks `loss, inter_, dist_ap, dist_an`, so `loss` is a Python float and loss.backward() fails
# raises: AttributeError: 'float' object has no attribute 'backward'
# source: https://github.com/bnu-wangxun/Deep_Metric/issues/26
import time
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class WeightLoss(nn.Module):
    def __init__(self, alpha=10.0, beta=2.0, margin=0.5):
        super().__init__()
        self.alpha = alpha
        self.beta = beta
        self.margin = margin

    def forward(self, inputs, targets):
        n = inputs.size(0)
        sim_mat = torch.matmul(inputs, inputs.t())
        loss = []
        c = 0
        for i in range(n):
            pos_pair_ = torch.masked_select(sim_mat[i], targets == targets[i])
            pos_pair_ = torch.masked_select(pos_pair_, pos_pair_ < 1 - 1e-5)
            neg_pair_ = torch.masked_select(sim_mat[i], targets != targets[i])
            if len(pos_pair_) < 1 or len(neg_pair_) < 1:
                c += 1
                continue
            pos_loss = 2.0 / self.beta * torch.log(1 + torch.sum(torch.exp(-self.beta * (pos_pair_ - self.margin))))
            neg_loss = 2.0 / self.alpha * torch.log(1 + torch.sum(torch.exp(self.alpha * (neg_pair_ - self.margin))))
            loss.append(pos_loss + neg_loss)
        loss = sum(loss) / n
        prec = float(c) / n
        mean_neg_sim = torch.mean(neg_pair_).item()
        mean_pos_sim = torch.mean(pos_pair_).item()
        return mean_pos_sim, mean_neg_sim, prec, loss


class Embedder(nn.Module):
    def __init__(self, in_dim=16, dim=8):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.classifier = nn.Linear(32, dim)

    def forward(self, x):
        return F.normalize(self.classifier(self.backbone(x)), dim=1)


@dataclass
class Args:
    print_freq: int = 2
    orth_reg: float = 0.0
    epochs: int = 2
    lr: float = 1e-3


def train(epoch, model, criterion, optimizer, train_loader, args):
    losses = AverageMeter()
    batch_time = AverageMeter()
    accuracy = AverageMeter()
    pos_sims = AverageMeter()
    neg_sims = AverageMeter()
    end = time.time()
    freq = min(args.print_freq, len(train_loader))
    for i, (inputs, labels) in enumerate(train_loader, 0):
        optimizer.zero_grad()
        embed_feat = model(inputs)
        loss, inter_, dist_ap, dist_an = criterion(embed_feat, labels)  # expect: GG106
        loss.backward()  # also: GG106
        optimizer.step()
        batch_time.update(time.time() - end)
        end = time.time()
        losses.update(loss.item())
        accuracy.update(inter_)
        pos_sims.update(dist_ap)
        neg_sims.update(dist_an)
        if (i + 1) % freq == 0 or (i + 1) == len(train_loader):
            print(f"Epoch: [{epoch + 1:03d}][{i + 1}/{len(train_loader)}]\tLoss {losses.avg:.4f}\t"
                  f"Accuracy {accuracy.avg:.4f}\tPos {pos_sims.avg:.4f}\tNeg {neg_sims.avg:.4f}")


def main():
    torch.manual_seed(0)
    args = Args()
    model = Embedder()
    criterion = WeightLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    train_loader = [(torch.randn(8, 16), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])) for _ in range(4)]
    for epoch in range(args.epochs):
        train(epoch, model, criterion, optimizer, train_loader, args)


if __name__ == "__main__":
    main()
