# corpus: MVTN-style multi-view 3D shape classifier (view selector + shared CNN over rendered views, models kept in a models_bag dict); the epoch loop accumulates the graph-bearing loss tensor with total_loss += loss, keeping every iteration's graph alive until the epoch ends
# source: https://github.com/ajhamdi/MVTN/issues/2
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class MVTN(nn.Module):
    """Predicts per-shape azimuth/elevation offsets for the cameras from a point-cloud feature."""

    def __init__(self, nb_views, feat_dim=32):
        super().__init__()
        self.point_encoder = nn.Sequential(nn.Linear(3, feat_dim), nn.ReLU(), nn.Linear(feat_dim, feat_dim))
        self.regressor = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, 2 * nb_views), nn.Tanh())
        self.nb_views = nb_views

    def forward(self, points, c_views_azim, c_views_elev):
        feat = self.point_encoder(points).max(dim=1)[0]
        offsets = self.regressor(feat).view(-1, 2, self.nb_views)
        return c_views_azim + offsets[:, 0] * 45.0, c_views_elev + offsets[:, 1] * 30.0


class ToyRenderer(nn.Module):
    """Differentiable stand-in for the mesh renderer: projects points to a small depth image per view."""

    def __init__(self, image_size=16):
        super().__init__()
        self.image_size = image_size
        grid = torch.linspace(-1, 1, image_size)
        self.register_buffer("gy", grid.view(1, 1, image_size, 1, 1))
        self.register_buffer("gx", grid.view(1, 1, 1, image_size, 1))

    def forward(self, points, azim, elev):
        a = torch.deg2rad(azim).unsqueeze(-1)
        e = torch.deg2rad(elev).unsqueeze(-1)
        x, y, z = points[..., 0].unsqueeze(1), points[..., 1].unsqueeze(1), points[..., 2].unsqueeze(1)
        u = x * torch.cos(a) - z * torch.sin(a)
        v = y * torch.cos(e) + (x * torch.sin(a) + z * torch.cos(a)) * torch.sin(e)
        d2 = (self.gx - u.unsqueeze(2).unsqueeze(2)) ** 2 + (self.gy - v.unsqueeze(2).unsqueeze(2)) ** 2
        return torch.exp(-d2 / 0.02).sum(-1).clamp(max=1.0)


class MVNetwork(nn.Module):
    def __init__(self, num_classes, nb_views):
        super().__init__()
        self.nb_views = nb_views
        self.cnn = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, rendered_images):
        b, v, h, w = rendered_images.shape
        feats = self.cnn(rendered_images.reshape(b * v, 1, h, w)).view(b, v, -1)
        pooled = feats.max(dim=1)[0]
        return self.classifier(pooled), feats


def train(data_loader, models_bag, setup):
    train_correct_points = 0.0
    train_total_points = 0.0
    total_loss = 0.0
    models_bag["mvnetwork"].train()
    models_bag["mvtn"].train()
    for i, (targets, points) in enumerate(data_loader):
        c_views_azim = torch.linspace(0, 360, setup["nb_views"] + 1)[:-1].expand(points.size(0), -1)
        c_views_elev = torch.full((points.size(0), setup["nb_views"]), 30.0)
        azim, elev = models_bag["mvtn"](points, c_views_azim, c_views_elev)
        rendered_images = models_bag["mvrenderer"](points, azim, elev)
        rendered_images = F.dropout(rendered_images, p=setup["view_reg"], training=True)
        outputs = models_bag["mvnetwork"](rendered_images)[0]
        loss = models_bag["criterion"](outputs, targets)
        models_bag["optimizer"].zero_grad()
        models_bag["mvtn_optimizer"].zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(models_bag["mvtn"].parameters(), setup["clip_grads_value"])
        models_bag["optimizer"].step()
        models_bag["mvtn_optimizer"].step()
        total_loss += loss  # expect: GG301
        _, predicted = torch.max(outputs.data, 1)
        train_total_points += targets.size(0)
        train_correct_points += (predicted == targets).sum().item()
    avg_train_acc = 100 * train_correct_points / train_total_points
    print("\nTrain acc: %.2f  loss: %.4f" % (avg_train_acc, total_loss.item() / (i + 1)))
    return avg_train_acc


def main():
    parser = argparse.ArgumentParser(description="MVTN")
    parser.add_argument("--nb_views", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--mvtn_learning_rate", type=float, default=1e-4)
    parser.add_argument("--view_reg", type=float, default=0.0)
    parser.add_argument("--clip_grads_value", type=float, default=30.0)
    setup = vars(parser.parse_args([]))
    torch.manual_seed(0)
    num_classes = 5
    mvnetwork = MVNetwork(num_classes, setup["nb_views"])
    mvtn = MVTN(setup["nb_views"])
    models_bag = {
        "mvnetwork": mvnetwork,
        "mvtn": mvtn,
        "mvrenderer": ToyRenderer(),
        "criterion": nn.CrossEntropyLoss(),
        "optimizer": torch.optim.AdamW(mvnetwork.parameters(), lr=setup["learning_rate"], weight_decay=0.03),
        "mvtn_optimizer": torch.optim.AdamW(mvtn.parameters(), lr=setup["mvtn_learning_rate"], weight_decay=0.01),
    }
    data_loader = [(torch.randint(0, num_classes, (4,)), torch.rand(4, 32, 3) * 1.6 - 0.8) for _ in range(3)]
    for epoch in range(setup["epochs"]):
        train(data_loader, models_bag, setup)


if __name__ == "__main__":
    main()
