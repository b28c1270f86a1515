# corpus: SimSiam self-supervised trainer: the negative-cosine criterion D(p, z) is meant to stop the gradient through the target branch z, but writes z.detach() as a bare statement instead of z = z.detach(), so gradients silently flow into both branches and the stop-gradient that prevents collapse is gone
# source: https://runebook.dev/ru/docs/pytorch/generated/torch.tensor.detach_
import torch
import torch.nn as nn
import torch.nn.functional as F


class SimSiam(nn.Module):
    def __init__(self, in_dim=32, dim=64, pred_dim=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 64), nn.BatchNorm1d(64), nn.ReLU())
        self.projector = nn.Sequential(nn.Linear(64, dim), nn.BatchNorm1d(dim), nn.ReLU(),
                                       nn.Linear(dim, dim), nn.BatchNorm1d(dim, affine=False))
        self.predictor = nn.Sequential(nn.Linear(dim, pred_dim), nn.BatchNorm1d(pred_dim), nn.ReLU(),
                                       nn.Linear(pred_dim, dim))

    def encoder(self, x):
        return self.projector(self.backbone(x))

    def forward(self, x1, x2):
        z1, z2 = self.encoder(x1), self.encoder(x2)
        p1, p2 = self.predictor(z1), self.predictor(z2)
        return p1, p2, z1, z2


def D(p, z):
    """Negative cosine similarity with stop-gradient on z (SimSiam, Algorithm 1)."""
    z.detach()  # expect: GG112
    p = F.normalize(p, dim=1)
    z = F.normalize(z, dim=1)  # also: GG112
    return -(p * z).sum(dim=1).mean()


class Augment:
    def __init__(self, noise=0.1, drop=0.2):
        self.noise = noise
        self.drop = drop

    def __call__(self, x):
        mask = (torch.rand_like(x) > self.drop).float()
        return x * mask + self.noise * torch.randn_like(x)


class SimSiamTrainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.augment = Augment()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)

    def train_step(self, x):
        x1, x2 = self.augment(x), self.augment(x)
        p1, p2, z1, z2 = self.model(x1, x2)
        loss = 0.5 * D(p1, z2) + 0.5 * D(p2, z1)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item(), F.normalize(z1, dim=1).std(dim=0).mean().item()

    def fit(self, loader, epochs=3):
        for epoch in range(epochs):
            stats = [self.train_step(x) for x in loader]
            loss = sum(s[0] for s in stats) / len(stats)
            spread = sum(s[1] for s in stats) / len(stats)
            print(f"epoch {epoch}: loss {loss:.4f} z-std {spread:.4f}")


def main():
    torch.manual_seed(0)
    loader = [torch.randn(32, 32) for _ in range(6)]
    trainer = SimSiamTrainer(SimSiam())
    trainer.fit(loader)


if __name__ == "__main__":
    main()
