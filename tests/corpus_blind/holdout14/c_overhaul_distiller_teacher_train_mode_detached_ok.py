# corpus: feature distillation Distiller module (clovaai overhaul-distillation shape): the teacher runs in train mode for BatchNorm statistics without torch.no_grad, but every teacher feature is detached inside the distillation loss, the student output and connector features keep their graph, and CE + distill are summed into one backward; correct
# source: https://github.com/clovaai/overhaul-distillation/issues/37
import torch
import torch.nn as nn
import torch.nn.functional as F


def distillation_loss(source, target, margin):
    target = torch.max(target, margin)
    loss = F.mse_loss(source, target, reduction="none")
    loss = loss * ((source > target) | (target > 0)).float()
    return loss.sum()


class Net(nn.Module):
    def __init__(self, widths, n_cls=10):
        super().__init__()
        chans = [3] + list(widths)
        self.stages = nn.ModuleList([nn.Sequential(nn.Conv2d(chans[k], chans[k + 1], 3, padding=1), nn.BatchNorm2d(chans[k + 1]))
                                     for k in range(len(widths))])
        self.fc = nn.Linear(widths[-1], n_cls)

    def extract_feature(self, x, preReLU=True):
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
            x = F.relu(x)
        out = self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))
        return feats, out


class Distiller(nn.Module):
    def __init__(self, t_net, s_net):
        super().__init__()
        t_channels = [m[0].out_channels for m in t_net.stages]
        s_channels = [m[0].out_channels for m in s_net.stages]
        self.Connectors = nn.ModuleList([nn.Sequential(nn.Conv2d(s, t, 1, bias=False), nn.BatchNorm2d(t))
                                         for t, s in zip(t_channels, s_channels)])
        self.t_net, self.s_net = t_net, s_net
        self.register_buffer_margins()

    def register_buffer_margins(self):
        for k, stage in enumerate(self.t_net.stages):
            self.register_buffer(f"margin{k}", -torch.ones(1, stage[1].num_features, 1, 1))

    def forward(self, x):
        t_feats, t_out = self.t_net.extract_feature(x, preReLU=True)
        s_feats, s_out = self.s_net.extract_feature(x, preReLU=True)
        feat_num = len(t_feats)
        loss_distill = 0
        for i in range(feat_num):
            s_feats[i] = self.Connectors[i](s_feats[i])
            loss_distill += distillation_loss(s_feats[i], t_feats[i].detach(), getattr(self, f"margin{i}")) \
                / 2 ** (feat_num - i - 1)
        return s_out, loss_distill


def train_with_distill(d_net, optimizer, loader, epoch):
    d_net.train()
    d_net.s_net.train()
    d_net.t_net.train()
    train_loss = 0.0
    for inputs, targets in loader:
        outputs, loss_distill = d_net(inputs)
        loss_CE = F.cross_entropy(outputs, targets)
        loss = loss_CE + loss_distill.sum() / inputs.size(0) / 1000
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
    assert all(p.grad is None for p in d_net.t_net.parameters())
    print(f"epoch {epoch} train loss {train_loss / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    d_net = Distiller(Net([16, 32]), Net([8, 16]))
    optimizer = torch.optim.SGD(list(d_net.s_net.parameters()) + list(d_net.Connectors.parameters()), lr=0.05, momentum=0.9)
    loader = [(torch.randn(4, 3, 8, 8), torch.randint(0, 10, (4,))) for _ in range(3)]
    for epoch in range(2):
        train_with_distill(d_net, optimizer, loader, epoch)


if __name__ == "__main__":
    main()
