# corpus: SimSiam model whose forward writes the stop-gradient as bare z1.detach() / z2.detach() statements and returns the live projections, so the symmetric negative-cosine loss also backpropagates through the target branch.
# source: https://github.com/facebookresearch/simsiam/blob/main/simsiam/builder.py
import torch
import torch.nn as nn


class TinyResNet(nn.Module):
    """Stand-in for torchvision's resnet with a replaceable fc head."""

    def __init__(self, num_classes=16, zero_init_residual=True):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.fc(self.body(x))


class SimSiam(nn.Module):
    """
    Build a SimSiam model.
    """
    def __init__(self, base_encoder, dim=16, pred_dim=8):
        super(SimSiam, self).__init__()

        self.encoder = base_encoder(num_classes=dim, zero_init_residual=True)

        # build a 3-layer projector
        prev_dim = self.encoder.fc.weight.shape[1]
        self.encoder.fc.bias.requires_grad = False  # not use bias as followed by BN
        self.encoder.fc = nn.Sequential(nn.Linear(prev_dim, prev_dim, bias=False),
                                        nn.BatchNorm1d(prev_dim),
                                        nn.ReLU(inplace=True),  # first layer
                                        nn.Linear(prev_dim, prev_dim, bias=False),
                                        nn.BatchNorm1d(prev_dim),
                                        nn.ReLU(inplace=True),  # second layer
                                        self.encoder.fc,
                                        nn.BatchNorm1d(dim, affine=False))  # output layer

        # build a 2-layer predictor
        self.predictor = nn.Sequential(nn.Linear(dim, pred_dim, bias=False),
                                       nn.BatchNorm1d(pred_dim),
                                       nn.ReLU(inplace=True),  # hidden layer
                                       nn.Linear(pred_dim, dim))  # output layer

    def forward(self, x1, x2):
        z1 = self.encoder(x1)  # NxC
        z2 = self.encoder(x2)  # NxC

        p1 = self.predictor(z1)  # NxC
        p2 = self.predictor(z2)  # NxC

        # stop-gradient on the targets
        z1.detach()  # expect: GG112
        z2.detach()  # also: GG112

        return p1, p2, z1, z2


class AverageMeter(object):
    def __init__(self, name):
        self.name = name
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def augment(images):
    noise = 0.1 * torch.randn_like(images)
    flip = torch.rand(images.size(0), 1, 1, 1) < 0.5
    return torch.where(flip, images.flip(3), images) + noise


def train(train_loader, model, criterion, optimizer, epoch):
    losses = AverageMeter('Loss')
    model.train()
    for i, images in enumerate(train_loader):
        x1, x2 = augment(images), augment(images)

        p1, p2, z1, z2 = model(x1=x1, x2=x2)
        loss = -(criterion(p1, z2).mean() + criterion(p2, z1).mean()) * 0.5

        losses.update(loss.item(), images.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {losses.avg:.4f}")


def main():
    torch.manual_seed(0)
    model = SimSiam(TinyResNet)
    criterion = nn.CosineSimilarity(dim=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    train_loader = [torch.rand(8, 3, 8, 8) for _ in range(3)]
    for epoch in range(2):
        train(train_loader, model, criterion, optimizer, epoch)


if __name__ == "__main__":
    main()
