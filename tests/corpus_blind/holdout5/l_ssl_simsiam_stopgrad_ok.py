# corpus: SimSiam (PatrickHua-style): model.forward(x1, x2) returns a dict with the symmetric loss D(p, z) where D rebinds z = z.detach() before normalising; training loop with cosine lr schedule and a no_grad kNN monitor (correct)
# source: https://github.com/PatrickHua/SimSiam/issues/22
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def D(p, z, version="simplified"):
    if version == "original":
        z = z.detach()
        p = F.normalize(p, dim=1)
        z = F.normalize(z, dim=1)
        return -(p * z).sum(dim=1).mean()
    elif version == "simplified":
        return -F.cosine_similarity(p, z.detach(), dim=-1).mean()
    else:
        raise Exception


class projection_MLP(nn.Module):
    def __init__(self, in_dim, hidden_dim=32, out_dim=32):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.BatchNorm1d(hidden_dim), nn.ReLU(inplace=True))
        self.layer2 = nn.Sequential(nn.Linear(hidden_dim, hidden_dim), nn.BatchNorm1d(hidden_dim), nn.ReLU(inplace=True))
        self.layer3 = nn.Sequential(nn.Linear(hidden_dim, out_dim), nn.BatchNorm1d(hidden_dim))

    def forward(self, x):
        return self.layer3(self.layer2(self.layer1(x)))


class prediction_MLP(nn.Module):
    def __init__(self, in_dim=32, hidden_dim=8, out_dim=32):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.BatchNorm1d(hidden_dim), nn.ReLU(inplace=True))
        self.layer2 = nn.Linear(hidden_dim, out_dim)

    def forward(self, x):
        return self.layer2(self.layer1(x))


class SimSiam(nn.Module):
    def __init__(self, backbone, output_dim=16):
        super().__init__()
        self.backbone = backbone
        self.projector = projection_MLP(output_dim)
        self.encoder = nn.Sequential(self.backbone, self.projector)
        self.predictor = prediction_MLP()

    def forward(self, x1, x2):
        f, h = self.encoder, self.predictor
        z1, z2 = f(x1), f(x2)
        p1, p2 = h(z1), h(z2)
        L = D(p1, z2, version="original") / 2 + D(p2, z1, version="original") / 2
        return {"loss": L}


class LR_Scheduler:
    def __init__(self, optimizer, warmup_epochs, warmup_lr, num_epochs, base_lr, final_lr, iter_per_epoch):
        warmup_iter = iter_per_epoch * warmup_epochs
        warmup_lr_schedule = torch.linspace(warmup_lr, base_lr, warmup_iter).tolist()
        decay_iter = iter_per_epoch * (num_epochs - warmup_epochs)
        cosine = [final_lr + 0.5 * (base_lr - final_lr) * (1 + math.cos(math.pi * i / decay_iter)) for i in range(decay_iter)]
        self.lr_schedule = warmup_lr_schedule + cosine
        self.optimizer = optimizer
        self.iter = 0
        self.current_lr = 0

    def step(self):
        for param_group in self.optimizer.param_groups:
            lr = param_group["lr"] = self.lr_schedule[min(self.iter, len(self.lr_schedule) - 1)]
        self.iter += 1
        self.current_lr = lr
        return lr

    def get_lr(self):
        return self.current_lr


def knn_monitor(net, memory_data, test_data, k=3):
    net.eval()
    with torch.no_grad():
        feature_bank = F.normalize(torch.cat([net(x) for x, _ in memory_data]), dim=1)
        labels = torch.cat([y for _, y in memory_data])
        correct, total = 0, 0
        for x, y in test_data:
            feat = F.normalize(net(x), dim=1)
            sim = feat @ feature_bank.t()
            idx = sim.topk(k, dim=1).indices
            pred = labels[idx].mode(dim=1).values
            correct += (pred == y).sum().item()
            total += y.size(0)
    return 100.0 * correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_epochs", type=int, default=2)
    parser.add_argument("--base_lr", type=float, default=0.05)
    args = parser.parse_args([])
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    model = SimSiam(backbone)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr, momentum=0.9, weight_decay=5e-4)
    train_loader = [((torch.rand(8, 3, 16, 16), torch.rand(8, 3, 16, 16)), torch.randint(0, 3, (8,))) for _ in range(3)]
    memory_loader = [(torch.rand(8, 3, 16, 16), torch.randint(0, 3, (8,))) for _ in range(2)]
    test_loader = [(torch.rand(8, 3, 16, 16), torch.randint(0, 3, (8,)))]
    lr_scheduler = LR_Scheduler(optimizer, 1, 0, args.num_epochs, args.base_lr, 0, len(train_loader))
    for epoch in range(args.num_epochs):
        model.train()
        for idx, ((images1, images2), labels) in enumerate(train_loader):
            model.zero_grad()
            data_dict = model.forward(images1, images2)
            loss = data_dict["loss"].mean()
            loss.backward()
            optimizer.step()
            lr_scheduler.step()
            data_dict.update({"lr": lr_scheduler.get_lr(), "loss": loss.item()})
            print(epoch, idx, data_dict)
        accuracy = knn_monitor(model.backbone, memory_loader, test_loader)
        print("epoch %d knn acc %.1f" % (epoch, accuracy))


if __name__ == "__main__":
    main()
