# corpus: point-cloud multi-task model (shared per-point backbone, regression head + classification head, torch-points3d style) whose train step backpropagates the two head losses one after the other without retain_graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/torch-points3d/torch-points3d/issues/620
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def MLP(channels):
    layers = []
    for i in range(1, len(channels)):
        layers += [nn.Linear(channels[i - 1], channels[i], bias=False), nn.LayerNorm(channels[i]), nn.LeakyReLU(0.2)]
    return nn.Sequential(*layers)


class PointBackbone(nn.Module):
    def __init__(self, input_nc, output_nc):
        super().__init__()
        self.output_nc = output_nc
        self.local = MLP([input_nc, 32, output_nc])

    def forward(self, pos, x):
        feats = self.local(torch.cat([pos, x], dim=-1))  # [B, N, C]
        return feats


class MultiTaskModel(nn.Module):
    def __init__(self, input_nc=8):
        super().__init__()
        self.backbone_model = PointBackbone(input_nc + 3, 16)
        nc = self.backbone_model.output_nc
        self.head1 = nn.Sequential(MLP([nc, nc]), nn.Linear(nc, 1))  # REGRESSION HEAD
        self.head2 = nn.Sequential(MLP([nc, nc]), nn.Linear(nc, 2))  # CLASSIFICATION HEAD

    def forward(self, data):
        backbone_feats = self.backbone_model(data["pos"], data["x"])
        return self.head1(backbone_feats), self.head2(backbone_feats)


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train_step(self, data):
        self.model.train()
        self.optimizer.zero_grad()
        reg_out, cls_out = self.model(data)
        loss_reg = F.mse_loss(reg_out.squeeze(-1), data["y_reg"])
        loss_cls = F.cross_entropy(cls_out.reshape(-1, 2), data["y_cls"].reshape(-1))
        loss_reg.backward()
        loss_cls.backward()  # expect: GG102
        self.optimizer.step()
        return {"loss_reg": loss_reg.item(), "loss_cls": loss_cls.item()}


def make_batch(batch_size, num_points, feat_dim):
    return {
        "pos": torch.rand(batch_size, num_points, 3),
        "x": torch.randn(batch_size, num_points, feat_dim),
        "y_reg": torch.randn(batch_size, num_points),
        "y_cls": torch.randint(0, 2, (batch_size, num_points)),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = Trainer(MultiTaskModel(), args.lr)
    for epoch in range(args.epochs):
        print(trainer.train_step(make_batch(2, 64, 8)))


if __name__ == "__main__":
    main()
