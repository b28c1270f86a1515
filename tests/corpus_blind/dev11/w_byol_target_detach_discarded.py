# corpus: BYOL module stops gradients into the target projections with bare z.detach() statements; the loss still backpropagates into the target network, which the optimizer then updates
# source: https://github.com/Lightning-Universe/lightning-bolts/issues/801
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(inp, hidden=16, out=4):
    return nn.Sequential(nn.Linear(inp, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, out))


class SiameseArm(nn.Module):
    def __init__(self, in_dim=6, feat_dim=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU())
        self.projector = mlp(feat_dim)
        self.predictor = mlp(4)

    def forward(self, x):
        y = self.encoder(x)
        z = self.projector(y)
        h = self.predictor(z)
        return y, z, h


class BYOLMAWeightUpdate:
    def __init__(self, initial_tau=0.99):
        self.current_tau = initial_tau

    @torch.no_grad()
    def update_weights(self, online_net, target_net):
        for p_online, p_target in zip(online_net.parameters(), target_net.parameters()):
            p_target.mul_(self.current_tau).add_((1 - self.current_tau) * p_online)


class BYOL(nn.Module):
    def __init__(self, lr=1e-2, max_steps=4):
        super().__init__()
        self.online_network = SiameseArm()
        self.target_network = copy.deepcopy(self.online_network)
        self.weight_callback = BYOLMAWeightUpdate()
        self.lr, self.max_steps = lr, max_steps

    def shared_step(self, img_1, img_2):
        # Image 1 to image 2 loss
        y1, z1, h1 = self.online_network(img_1)
        y2, z2, h2 = self.target_network(img_2)
        z2.detach()  # expect: GG112
        loss_a = -2 * F.cosine_similarity(h1, z2).mean()  # also: GG112
        # Image 2 to image 1 loss
        y1, z1, h1 = self.online_network(img_2)
        y2, z2, h2 = self.target_network(img_1)
        z2.detach()  # also: GG112
        loss_b = -2 * F.cosine_similarity(h1, z2).mean()  # also: GG112
        return loss_a, loss_b, loss_a + loss_b

    def training_step(self, batch, batch_idx):
        img_1, img_2 = batch
        loss_a, loss_b, total_loss = self.shared_step(img_1, img_2)
        return {"loss": total_loss, "log": {"1_2_loss": loss_a.item(), "2_1_loss": loss_b.item()}}

    def on_train_batch_end(self, step):
        self.weight_callback.current_tau = 1 - (1 - 0.99) * (math.cos(math.pi * step / self.max_steps) + 1) / 2
        self.weight_callback.update_weights(self.online_network, self.target_network)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr, weight_decay=1e-6)


def augment(x):
    return x + 0.1 * torch.randn_like(x), x * (1 + 0.1 * torch.randn_like(x))


def fit(model, steps=4):
    optimizer = model.configure_optimizers()
    history = []
    for step in range(steps):
        batch = augment(torch.randn(8, 6))
        out = model.training_step(batch, step)
        optimizer.zero_grad()
        out["loss"].backward()
        optimizer.step()
        model.on_train_batch_end(step)
        history.append(out["loss"].item())
    return history


if __name__ == "__main__":
    torch.manual_seed(0)
    print("byol loss", fit(BYOL()))
