# corpus: shading helper safe_divide() clamps near-zero entries with boolean-mask assignment, overwriting tensors that sigmoid/exp saved for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/zju3dv/RelightableAvatar/issues/3
import torch
import torch.nn as nn


def safe_divide(a, b, eps=1e-6):
    a[(a < eps) & (a >= 0)] = eps  # expect: GG107
    a[(a > -eps) & (a <= 0)] = -eps  # also: GG107
    b[(b < eps) & (b >= 0)] = eps  # also: GG107
    b[(b > -eps) & (b <= 0)] = -eps  # also: GG107
    return a / b


class RelightNet(nn.Module):
    def __init__(self, feat_dim=8):
        super().__init__()
        self.albedo_head = nn.Linear(feat_dim, 3)
        self.irradiance_head = nn.Linear(feat_dim, 3)

    def forward(self, feats):
        albedo = torch.sigmoid(self.albedo_head(feats))
        irradiance = torch.exp(self.irradiance_head(feats) - 4.0)
        ratio = safe_divide(albedo, irradiance)
        return albedo, irradiance, ratio


class Runner:
    def __init__(self):
        self.net = RelightNet()
        self.optim = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.losses = {}

    def step(self, feats, rgb_gt):
        albedo, irradiance, ratio = self.net(feats)
        rgb = albedo * irradiance
        self.losses = {"rgb": (rgb - rgb_gt).abs().mean(), "ratio": ratio.mean() * 1e-3}
        total = sum(self.losses.values())
        self.optim.zero_grad()
        total.backward()  # also: GG107
        self.optim.step()


def main():
    torch.manual_seed(0)
    runner = Runner()
    feats = torch.randn(64, 8)
    rgb_gt = torch.rand(64, 3)
    runner.step(feats, rgb_gt)


if __name__ == "__main__":
    main()
