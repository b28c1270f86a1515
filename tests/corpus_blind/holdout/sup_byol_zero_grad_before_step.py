# corpus: BYOL trainer calls backward, then optimizer.zero_grad(), then optimizer.step(), so the online network never updates
# source: https://github.com/lucidrains/byol-pytorch/issues/93
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def MLP(dim, projection_size, hidden_size=32):
    return nn.Sequential(nn.Linear(dim, hidden_size), nn.BatchNorm1d(hidden_size), nn.ReLU(inplace=True), nn.Linear(hidden_size, projection_size))


def loss_fn(x, y):
    x = F.normalize(x, dim=-1, p=2)
    y = F.normalize(y, dim=-1, p=2)
    return 2 - 2 * (x * y).sum(dim=-1)


class EMA:
    def __init__(self, beta):
        self.beta = beta

    def update_average(self, old, new):
        return old * self.beta + (1 - self.beta) * new


class BYOL(nn.Module):
    def __init__(self, net, dim=16, projection_size=8, moving_average_decay=0.99):
        super().__init__()
        self.online_encoder = nn.Sequential(net, MLP(dim, projection_size))
        self.online_predictor = MLP(projection_size, projection_size)
        self.target_encoder = copy.deepcopy(self.online_encoder)
        for p in self.target_encoder.parameters():
            p.requires_grad = False
        self.target_ema_updater = EMA(moving_average_decay)

    def augment(self, x):
        return x + 0.1 * torch.randn_like(x)

    @torch.no_grad()
    def update_moving_average(self):
        for cur, ma in zip(self.online_encoder.parameters(), self.target_encoder.parameters()):
            ma.data = self.target_ema_updater.update_average(ma.data, cur.data)

    def forward(self, x):
        one, two = self.augment(x), self.augment(x)
        online_pred_one = self.online_predictor(self.online_encoder(one))
        online_pred_two = self.online_predictor(self.online_encoder(two))
        with torch.no_grad():
            target_proj_one = self.target_encoder(one)
            target_proj_two = self.target_encoder(two)
        loss = loss_fn(online_pred_one, target_proj_two) + loss_fn(online_pred_two, target_proj_one)
        return loss.mean()


class BYOLTrainer:
    def __init__(self, net, lr=3e-2):
        self.byol = BYOL(net)
        self.optimizer = torch.optim.Adam(
            list(self.byol.online_encoder.parameters()) + list(self.byol.online_predictor.parameters()), lr=lr
        )
        self.step = 0

    def forward(self, loader, num_train_steps):
        self.byol.train()
        for images in loader:
            loss = self.byol(images)
            loss.backward()  # expect: GG201
            self.optimizer.zero_grad()  # also: GG201
            self.optimizer.step()  # also: GG201
            self.byol.update_moving_average()
            self.step += 1
            if self.step >= num_train_steps:
                break


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(20, 16), nn.ReLU())
    trainer = BYOLTrainer(net)
    initial = copy.deepcopy(trainer.byol.online_encoder.state_dict())
    loader = [torch.randn(8, 20) for _ in range(4)]
    trainer.forward(loader, num_train_steps=4)
    return trainer, initial


if __name__ == "__main__":
    trainer, initial = main()
    # ground truth: gradients were wiped before every step, so no trainable weight moved
    assert all(p.grad is None for p in trainer.byol.online_encoder.parameters())
    current = trainer.byol.online_encoder.state_dict()
    assert all(torch.equal(initial[k], current[k]) for k in initial if "weight" in k or "bias" in k)
