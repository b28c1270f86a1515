# corpus: feature-distillation Distiller keeps the teacher in train mode but extracts its pre-ReLU features under no_grad and detaches them in the per-layer loss summed inside forward
# source: https://github.com/clovaai/overhaul-distillation/issues/34
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def distillation_loss(source, target, margin):
    target = torch.max(target, margin)
    loss = F.mse_loss(source, target, reduction="none")
    loss = loss * ((source > target) | (target > 0)).float()
    return loss.sum()


def build_feature_connector(t_channel, s_channel):
    return nn.Sequential(nn.Conv2d(s_channel, t_channel, kernel_size=1, bias=False), nn.BatchNorm2d(t_channel))


def get_margin_from_BN(bn):
    margin = []
    for s, m in zip(bn.weight.data, bn.bias.data):
        s, m = abs(s.item()) + 1e-6, m.item()
        if norm_cdf(-m / s) > 0.001:
            margin.append(-s * math.exp(-(m / s) ** 2 / 2) / math.sqrt(2 * math.pi) / norm_cdf(-m / s) + m)
        else:
            margin.append(-3 * s)
    return torch.tensor(margin)


class SmallNet(nn.Module):
    def __init__(self, widths, num_classes=5):
        super().__init__()
        self.convs = nn.ModuleList()
        self.bns = nn.ModuleList()
        c_in = 3
        for w in widths:
            self.convs.append(nn.Conv2d(c_in, w, 3, stride=2, padding=1, bias=False))
            self.bns.append(nn.BatchNorm2d(w))
            c_in = w
        self.fc = nn.Linear(c_in, num_classes)
        self.widths = widths

    def get_channel_num(self):
        return self.widths

    def get_bn_before_relu(self):
        return list(self.bns)

    def extract_feature(self, x, preReLU=False):
        feats = []
        for conv, bn in zip(self.convs, self.bns):
            x = bn(conv(x))
            feats.append(x if preReLU else F.relu(x))
            x = F.relu(x)
        return feats, self.fc(x.mean(dim=(2, 3)))


class Distiller(nn.Module):
    def __init__(self, t_net, s_net):
        super().__init__()
        t_channels, s_channels = t_net.get_channel_num(), s_net.get_channel_num()
        self.Connectors = nn.ModuleList([build_feature_connector(t, s) for t, s in zip(t_channels, s_channels)])
        for i, bn in enumerate(t_net.get_bn_before_relu()):
            self.register_buffer("margin%d" % (i + 1), get_margin_from_BN(bn).view(1, -1, 1, 1))
        self.t_net, self.s_net = t_net, s_net

    def forward(self, x):
        with torch.no_grad():
            t_feats, t_out = self.t_net.extract_feature(x, preReLU=True)
        s_feats, s_out = self.s_net.extract_feature(x, preReLU=True)
        feat_num = len(t_feats)
        loss_distill = 0
        for i in range(feat_num):
            s_feats[i] = self.Connectors[i](s_feats[i])
            loss_distill += distillation_loss(s_feats[i], t_feats[i].detach(), getattr(self, "margin%d" % (i + 1))) \
                / 2 ** (feat_num - i - 1)
        return s_out, loss_distill


def train_with_distill(d_net, optimizer, criterion_CE, loader, epoch):
    d_net.train()
    d_net.s_net.train()
    d_net.t_net.train()
    train_loss, correct, total = 0, 0, 0
    for inputs, targets in loader:
        optimizer.zero_grad()
        batch_size = inputs.shape[0]
        outputs, loss_distill = d_net(inputs)
        loss_CE = criterion_CE(outputs, targets)
        loss = loss_CE + loss_distill.sum() / batch_size / 1000
        loss.backward()
        optimizer.step()
        train_loss += loss_CE.item()
        correct += outputs.argmax(1).eq(targets).sum().item()
        total += targets.size(0)
    print(f"epoch {epoch}: CE {train_loss / len(loader):.4f} acc {100.0 * correct / total:.1f}%")


def main():
    torch.manual_seed(0)
    t_net, s_net = SmallNet([8, 16]), SmallNet([4, 8])
    d_net = Distiller(t_net, s_net)
    optimizer = torch.optim.SGD(list(s_net.parameters()) + list(d_net.Connectors.parameters()), lr=0.05, momentum=0.9)
    loader = [(torch.randn(4, 3, 16, 16), torch.randint(0, 5, (4,))) for _ in range(4)]
    for epoch in range(2):
        train_with_distill(d_net, optimizer, nn.CrossEntropyLoss(), loader, epoch)


if __name__ == "__main__":
    main()
