# corpus: SimSiam negative-cosine loss D(p, z) whose stop-gradient is a bare `z.detach()` statement; the result is thrown away, so gradients flow through both branches and the stop-grad the method relies on is gone
# source: https://github.com/PatrickHua/SimSiam/issues/39
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def D(p, z, version="original"):  # negative cosine similarity
    if version == "original":
        z.detach()  # expect: GG112
        p = F.normalize(p, dim=1)  # l2-normalize
        z = F.normalize(z, dim=1)  # l2-normalize
        return -(p * z).sum(dim=1).mean()
    elif version == "simplified":
        return -F.cosine_similarity(p, z.detach(), dim=-1).mean()
    else:
        raise Exception


class projection_MLP(nn.Module):
    def __init__(self, in_dim, hidden_dim=64, out_dim=64):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.BatchNorm1d(hidden_dim), nn.ReLU(inplace=True))
        self.layer2 = nn.Sequential(nn.Linear(hidden_dim, out_dim), nn.BatchNorm1d(out_dim))

    def forward(self, x):
        return self.layer2(self.layer1(x))


class prediction_MLP(nn.Module):
    def __init__(self, in_dim=64, hidden_dim=16, out_dim=64):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.BatchNorm1d(hidden_dim), nn.ReLU(inplace=True))
        self.layer2 = nn.Linear(hidden_dim, out_dim)

    def forward(self, x):
        return self.layer2(self.layer1(x))


class SimSiam(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.projector = projection_MLP(backbone.output_dim)
        self.encoder = nn.Sequential(self.backbone, self.projector)
        self.predictor = prediction_MLP()

    def forward(self, x1, x2):
        f, h = self.encoder, self.predictor
        z1, z2 = f(x1), f(x2)
        p1, p2 = h(z1), h(z2)
        L = D(p1, z2) / 2 + D(p2, z1) / 2
        return {"loss": L}


class TinyBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.output_dim = 32
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
                                      nn.Linear(32, self.output_dim))

    def forward(self, x):
        return self.features(x)


def simsiam_transform(images):
    # two random "views": flip + additive jitter
    flip = torch.rand(images.size(0), 1, 1, 1) < 0.5
    view = torch.where(flip, images.flip(-1), images)
    return view + 0.1 * torch.randn_like(view)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--iters", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args([])

    torch.manual_seed(0)
    model = SimSiam(TinyBackbone())
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    for epoch in range(args.epochs):
        model.train()
        for idx in range(args.iters):
            images = torch.rand(args.batch_size, 3, 16, 16)
            images1, images2 = simsiam_transform(images), simsiam_transform(images)
            model.zero_grad()
            data_dict = model.forward(images1, images2)
            loss = data_dict["loss"].mean()
            loss.backward()
            optimizer.step()
        print("epoch %d loss %.4f" % (epoch, loss.item()))


if __name__ == "__main__":
    main()
