# corpus: fp16-overflow guard wraps Conv3d/ConvTranspose3d and clamps their outputs with torch.clamp_ in forward; conv does not save its output so backward is fine (correct)
# source: https://github.com/pytorch/pytorch/issues/33373
import torch
import torch.nn as nn

_conv3d = nn.Conv3d
_conv_trans3d = nn.ConvTranspose3d


class Conv3dWrapper(_conv3d):
    def forward(self, input):
        return torch.clamp_(super().forward(input), -65504, 65504)


class ConvTranspose3dWrapper(_conv_trans3d):
    def forward(self, input, output_size=None):
        return torch.clamp_(super().forward(input, output_size), -65504, 65504)


class UNet3DTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = Conv3dWrapper(1, 4, 3, stride=2, padding=1)
        self.mid = Conv3dWrapper(4, 4, 3, padding=1)
        self.dec = ConvTranspose3dWrapper(4, 1, 2, stride=2)

    def forward(self, x):
        h = torch.relu(self.enc(x))
        h = h + torch.relu(self.mid(h))
        return self.dec(h)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = UNet3DTiny()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    vol = torch.randn(2, 1, 6, 6, 6)
    for _ in range(2):
        opt.zero_grad()
        loss = (net(vol) - vol).pow(2).mean()
        loss.backward()
        opt.step()
    # ground truth: backward through the in-place clamps succeeded and every parameter has a finite gradient
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in net.parameters())
