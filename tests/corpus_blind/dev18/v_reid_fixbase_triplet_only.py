# corpus: A person re-ID triplet engine freezes everything except the classifier for the fixbase epochs, but with weight_x=0 the loss is built only from backbone features, so it has no grad_fn.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/KaiyangZhou/deep-person-reid/issues/373
import torch
import torch.nn as nn


class TripletLoss(nn.Module):
    def __init__(self, margin=0.3):
        super(TripletLoss, self).__init__()
        self.margin = margin
        self.ranking_loss = nn.MarginRankingLoss(margin=margin)

    def forward(self, inputs, targets):
        n = inputs.size(0)
        dist = torch.pow(inputs, 2).sum(dim=1, keepdim=True).expand(n, n)
        dist = dist + dist.t()
        dist.addmm_(inputs, inputs.t(), beta=1, alpha=-2)
        dist = dist.clamp(min=1e-12).sqrt()
        mask = targets.expand(n, n).eq(targets.expand(n, n).t())
        dist_ap, dist_an = [], []
        for i in range(n):
            dist_ap.append(dist[i][mask[i]].max().unsqueeze(0))
            dist_an.append(dist[i][mask[i] == 0].min().unsqueeze(0))
        dist_ap = torch.cat(dist_ap)
        dist_an = torch.cat(dist_an)
        y = torch.ones_like(dist_an)
        return self.ranking_loss(dist_an, dist_ap, y)


class ReIDNet(nn.Module):
    def __init__(self, num_classes, feat_dim=32):
        super(ReIDNet, self).__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, feat_dim, 3, padding=1, stride=2), nn.BatchNorm2d(feat_dim), nn.ReLU(),
        )
        self.global_avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        f = self.backbone(x)
        v = self.global_avgpool(f).view(f.size(0), -1)
        y = self.classifier(v)
        return y, v


def open_specified_layers(model, open_layers):
    if isinstance(open_layers, str):
        open_layers = [open_layers]
    for name, module in model.named_children():
        if name in open_layers:
            module.train()
            for p in module.parameters():
                p.requires_grad = True
        else:
            module.eval()
            for p in module.parameters():
                p.requires_grad = False


def open_all_layers(model):
    model.train()
    for p in model.parameters():
        p.requires_grad = True


class ImageTripletEngine(object):
    def __init__(self, model, optimizer, num_classes, margin=0.3, weight_t=1.0, weight_x=1.0):
        self.model = model
        self.optimizer = optimizer
        self.weight_t = weight_t
        self.weight_x = weight_x
        self.criterion_t = TripletLoss(margin=margin)
        self.criterion_x = nn.CrossEntropyLoss(label_smoothing=0.1)

    def forward_backward(self, imgs, pids):
        outputs, features = self.model(imgs)
        loss = 0
        loss_summary = {}
        if self.weight_t > 0:
            loss_t = self.criterion_t(features, pids)
            loss += self.weight_t * loss_t
            loss_summary["loss_t"] = loss_t.item()
        if self.weight_x > 0:
            loss_x = self.criterion_x(outputs, pids)
            loss += self.weight_x * loss_x
            loss_summary["loss_x"] = loss_x.item()
        assert loss_summary
        self.optimizer.zero_grad()
        loss.backward()  # expect: GG106
        self.optimizer.step()
        return loss_summary

    def train(self, epoch, batches, fixbase_epoch=0, open_layers=None):
        self.model.train()
        if (epoch + 1) <= fixbase_epoch and open_layers is not None:
            print("* Only train {} (epoch: {}/{})".format(open_layers, epoch + 1, fixbase_epoch))
            open_specified_layers(self.model, open_layers)
        else:
            open_all_layers(self.model)
        for imgs, pids in batches:
            summary = self.forward_backward(imgs, pids)
            print(epoch, summary)


def random_identity_batches(num_batches, num_ids=4, num_instances=2):
    for _ in range(num_batches):
        pids = torch.arange(num_ids).repeat_interleave(num_instances)
        imgs = torch.randn(pids.numel(), 3, 32, 16)
        yield imgs, pids


def main():
    torch.manual_seed(0)
    model = ReIDNet(num_classes=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    engine = ImageTripletEngine(model, optimizer, num_classes=4, margin=0.3, weight_t=1.0, weight_x=0.0)
    for epoch in range(2):
        engine.train(epoch, random_identity_batches(2), fixbase_epoch=1, open_layers=["classifier"])


if __name__ == "__main__":
    main()
