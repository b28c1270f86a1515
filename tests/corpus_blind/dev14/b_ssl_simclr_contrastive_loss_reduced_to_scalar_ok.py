# corpus: SimCLR pretraining (pietz/simclr shape: random augment pair, encoder + projection head, contrastive loss over the 2N x 2N cosine-similarity matrix): the per-sample term -log(pos / denominator) is a vector but it is averaged with torch.mean before backward, so loss.backward() gets a scalar; the epoch meter uses .item(); correct
# source: https://github.com/pietz/simclr/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F


def augment(x):
    flip = torch.rand(x.size(0), 1, 1, 1) < 0.5
    x = torch.where(flip, x.flip(-1), x)
    return x + 0.1 * torch.randn_like(x)


class SimCLRNet(nn.Module):
    def __init__(self, feat_dim=16, proj_dim=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, feat_dim))
        self.projection = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, proj_dim))

    def forward(self, x):
        return self.projection(self.encoder(x))


def contrastive_loss(z_i, z_j, tau=0.5):
    n = z_i.size(0)
    z = F.normalize(torch.cat([z_i, z_j], dim=0), dim=1)
    sim = torch.exp(z @ z.t() / tau)
    mask = ~torch.eye(2 * n, dtype=torch.bool)
    denominator = (sim * mask).sum(dim=1)
    pos = torch.exp(F.cosine_similarity(torch.cat([z_i, z_j]), torch.cat([z_j, z_i]), dim=1) / tau)
    x = pos / denominator
    return torch.mean(-torch.log(x))


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train_epoch(self, loader):
        total, n = 0.0, 0
        for images in loader:
            z_i, z_j = self.model(augment(images)), self.model(augment(images))
            loss = contrastive_loss(z_i, z_j)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
            n += 1
        return total / n


def main():
    torch.manual_seed(0)
    trainer = Trainer(SimCLRNet())
    loader = [torch.rand(8, 3, 8, 8) for _ in range(3)]
    for epoch in range(2):
        print(f"epoch {epoch} loss {trainer.train_epoch(loader):.4f}")


if __name__ == "__main__":
    main()
