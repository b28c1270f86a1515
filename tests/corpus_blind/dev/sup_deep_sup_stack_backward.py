# corpus: deep-supervision segmentation module stacks the per-head losses into a vector and the step calls backward on it
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/4073
import torch
import torch.nn as nn
import torch.nn.functional as F


class DSUNet(nn.Module):
    """Tiny encoder-decoder with a side output at every decoder stage."""

    def __init__(self, ch=8, n_stages=3):
        super().__init__()
        self.stem = nn.Conv2d(1, ch, 3, padding=1)
        self.down = nn.ModuleList([nn.Conv2d(ch, ch, 3, stride=2, padding=1) for _ in range(n_stages)])
        self.up = nn.ModuleList([nn.ConvTranspose2d(ch, ch, 2, stride=2) for _ in range(n_stages)])
        self.side = nn.ModuleList([nn.Conv2d(ch, 1, 1) for _ in range(n_stages)])

    def forward(self, x):
        h = F.relu(self.stem(x))
        skips = []
        for conv in self.down:
            skips.append(h)
            h = F.relu(conv(h))
        outputs = []
        for up, side, skip in zip(self.up, self.side, reversed(skips)):
            h = F.relu(up(h)) + skip
            outputs.append(side(h))
        return outputs[::-1]  # highest resolution first


class SegModule:
    def __init__(self, net, ds_weights=(1.0, 0.5, 0.25)):
        self.net = net
        self.ds_weights = torch.tensor(ds_weights)
        self.optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        self.logs = []

    def compute_losses(self, outputs, mask):
        losses = []
        for out in outputs:
            target = F.interpolate(mask, size=out.shape[-2:], mode="nearest")
            losses.append(F.binary_cross_entropy_with_logits(out, target))
        return torch.stack(losses) * self.ds_weights  # also: GG109

    def training_step(self, batch):
        image, mask = batch
        losses = self.compute_losses(self.net(image), mask)
        self.logs.append({f"loss_ds{i}": l.item() for i, l in enumerate(losses)})
        return losses

    def fit(self, loader):
        for batch in loader:
            loss = self.training_step(batch)
            self.optimizer.zero_grad()
            loss.backward()  # expect: GG109
            self.optimizer.step()


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(2, 1, 16, 16), torch.rand(2, 1, 16, 16).round()) for _ in range(2)]
    SegModule(DSUNet()).fit(loader)


if __name__ == "__main__":
    main()
