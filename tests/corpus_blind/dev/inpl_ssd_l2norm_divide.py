# corpus: SSD L2Norm layer normalises with `x /= norm` in forward, overwriting the input that pow() saved for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/lzx1413/PytorchSSD/issues/72
import torch
import torch.nn as nn
import torch.nn.init as init


class L2Norm(nn.Module):
    def __init__(self, n_channels, scale):
        super().__init__()
        self.n_channels = n_channels
        self.gamma = scale
        self.eps = 1e-10
        self.weight = nn.Parameter(torch.empty(n_channels))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.gamma)

    def forward(self, x):
        norm = x.pow(2).sum(dim=1, keepdim=True).sqrt() + self.eps
        x /= norm  # expect: GG107
        return self.weight.view(1, -1, 1, 1) * x


class TinySSD(nn.Module):
    def __init__(self, num_classes=3, num_anchors=2):
        super().__init__()
        self.base = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
        self.l2norm = L2Norm(8, 20)
        self.loc = nn.Conv2d(8, num_anchors * 4, 3, padding=1)
        self.conf = nn.Conv2d(8, num_anchors * num_classes, 3, padding=1)
        self.num_classes = num_classes

    def forward(self, x):
        s = self.l2norm(self.base(x))
        loc = self.loc(s).permute(0, 2, 3, 1).reshape(x.size(0), -1, 4)
        conf = self.conf(s).permute(0, 2, 3, 1).reshape(x.size(0), -1, self.num_classes)
        return loc, conf


class MultiBoxLoss(nn.Module):
    def forward(self, predictions, targets):
        loc, conf = predictions
        loc_t, conf_t = targets
        loss_l = nn.functional.smooth_l1_loss(loc, loc_t)
        loss_c = nn.functional.cross_entropy(conf.reshape(-1, conf.size(-1)), conf_t.reshape(-1))
        return loss_l, loss_c


def train():
    torch.manual_seed(0)
    net = TinySSD()
    criterion = MultiBoxLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    images = torch.randn(2, 3, 8, 8)
    loc_t = torch.randn(2, 8 * 8 * 2, 4)
    conf_t = torch.randint(0, 3, (2, 8 * 8 * 2))
    for iteration in range(2):
        out = net(images)
        optimizer.zero_grad()
        loss_l, loss_c = criterion(out, (loc_t, conf_t))
        loss = loss_l + loss_c
        loss.backward()  # also: GG107
        optimizer.step()


if __name__ == "__main__":
    train()
