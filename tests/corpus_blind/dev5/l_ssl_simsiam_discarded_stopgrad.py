# corpus: SimSiam self-supervised pretraining module (backbone + projection MLP + prediction MLP, symmetric negative-cosine loss); the stop-gradient on the projections is written as bare z0.detach() / z1.detach() statements, so gradients still flow through the target branch
# source: https://github.com/lightly-ai/lightly/issues/559
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class SimSiamProjectionHead(nn.Module):
    def __init__(self, in_dim, hidden_dim, out_dim):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(in_dim, hidden_dim, bias=False), nn.BatchNorm1d(hidden_dim), nn.ReLU(),
            nn.Linear(hidden_dim, out_dim, bias=False), nn.BatchNorm1d(out_dim, affine=False))

    def forward(self, x):
        return self.layers(x)


class SimSiamPredictionHead(nn.Module):
    def __init__(self, in_dim, hidden_dim, out_dim):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(in_dim, hidden_dim, bias=False), nn.BatchNorm1d(hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, out_dim))

    def forward(self, x):
        return self.layers(x)


class NegativeCosineSimilarity(nn.Module):
    def forward(self, x0, x1):
        return -F.cosine_similarity(x0, x1, dim=1).mean()


class SimSiam(nn.Module):
    def __init__(self, backbone, num_ftrs=32, proj_hidden_dim=32, pred_hidden_dim=8, out_dim=32):
        super().__init__()
        self.backbone = backbone
        self.projection_head = SimSiamProjectionHead(num_ftrs, proj_hidden_dim, out_dim)
        self.prediction_head = SimSiamPredictionHead(out_dim, pred_hidden_dim, out_dim)

    def forward(self, x):
        f = self.backbone(x).flatten(start_dim=1)
        z = self.projection_head(f)
        p = self.prediction_head(z)
        return z, p


class SimSiamTrainer:
    def __init__(self, model, lr, momentum, weight_decay):
        self.model = model
        self.criterion = NegativeCosineSimilarity()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)

    def training_step(self, batch, batch_idx):
        (x0, x1), _ = batch
        z0, p0 = self.model(x0)
        z1, p1 = self.model(x1)
        # stop gradient on the targets
        z0.detach()  # expect: GG112
        z1.detach()  # expect: GG112
        loss = 0.5 * (self.criterion(p0, z1) + self.criterion(p1, z0))
        return loss

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            avg_loss = 0.0
            for batch_idx, batch in enumerate(loader):
                self.model.train()
                loss = self.training_step(batch, batch_idx)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                avg_loss += loss.item()
            print("epoch %d loss %.4f" % (epoch, avg_loss / len(loader)))


def augment(x):
    x = x + 0.1 * torch.randn_like(x)
    flip = torch.rand(x.size(0)) < 0.5
    x[flip] = x[flip].flip(-1)
    return x


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.06)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
    model = SimSiam(backbone)
    trainer = SimSiamTrainer(model, lr=args.lr, momentum=0.9, weight_decay=5e-4)
    images = [torch.rand(8, 3, 16, 16) for _ in range(3)]
    loader = [((augment(x), augment(x)), torch.zeros(8)) for x in images]
    trainer.fit(loader, args.epochs)


if __name__ == "__main__":
    main()
