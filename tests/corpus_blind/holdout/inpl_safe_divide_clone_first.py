# corpus: shading helper safe_divide() clones its inputs before the boolean-mask clamps, so the sigmoid/exp outputs saved for backward are untouched (correct)
# source: https://github.com/zju3dv/RelightableAvatar/issues/3
import torch
import torch.nn as nn


def safe_divide(a, b, eps=1e-6):
    a = a.clone()
    b = b.clone()
    a[(a < eps) & (a >= 0)] = eps
    a[(a > -eps) & (a <= 0)] = -eps
    b[(b < eps) & (b >= 0)] = eps
    b[(b > -eps) & (b <= 0)] = -eps
    return a / b


class ShadingModel(nn.Module):
    def __init__(self, feat_dim=8):
        super().__init__()
        self.albedo = nn.Linear(feat_dim, 3)
        self.light = nn.Linear(feat_dim, 3)

    def forward(self, feats):
        albedo = torch.sigmoid(self.albedo(feats))
        irradiance = torch.exp(self.light(feats) - 4.0)
        return {"albedo": albedo, "irradiance": irradiance, "ratio": safe_divide(albedo, irradiance)}


class Runner:
    def __init__(self):
        self.model = ShadingModel()
        self.optim = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.log = {}

    def step(self, feats, rgb_gt):
        out = self.model(feats)
        losses = {
            "rgb": (out["albedo"] * out["irradiance"] - rgb_gt).abs().mean(),
            "ratio": out["ratio"].mean() * 1e-3,
        }
        total = sum(losses.values())
        self.optim.zero_grad()
        total.backward()
        self.optim.step()
        self.log = {k: v.item() for k, v in losses.items()}


if __name__ == "__main__":
    torch.manual_seed(0)
    runner = Runner()
    feats, rgb = torch.randn(64, 8), torch.rand(64, 3)
    for _ in range(2):
        runner.step(feats, rgb)
    # ground truth: all parameters got gradients and the logged losses are plain floats
    assert all(p.grad is not None for p in runner.model.parameters())
    assert all(isinstance(v, float) for v in runner.log.values())
