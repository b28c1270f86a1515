# corpus: UNet3+-style network returns five side outputs; the hybrid losses are summed per batch and backpropagated once (correct)
# source: https://github.com/ZJUGiveLab/UNet-Version/issues/7
import torch
import torch.nn as nn
import torch.nn.functional as F


class UNet3PlusDS(nn.Module):
    def __init__(self, ch=6, n_side=5):
        super().__init__()
        self.enc = nn.ModuleList([nn.Conv2d(1 if i == 0 else ch, ch, 3, padding=1) for i in range(n_side)])
        self.side = nn.ModuleList([nn.Conv2d(ch, 1, 3, padding=1) for _ in range(n_side)])

    def forward(self, x):
        size = x.shape[-2:]
        outs = []
        h = x
        for i, (enc, side) in enumerate(zip(self.enc, self.side)):
            h = F.relu(enc(h))
            if i > 0:
                h = F.max_pool2d(h, 2) if h.shape[-1] > 2 else h
            outs.append(torch.sigmoid(F.interpolate(side(h), size=size, mode="bilinear", align_corners=False)))
        return outs


def dice_loss(pred, target, eps=1.0):
    inter = (pred * target).sum(dim=(1, 2, 3))
    union = pred.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return (1 - (2 * inter + eps) / (union + eps)).mean()


def get_hybrid_loss(pred, target):
    return F.binary_cross_entropy(pred, target) + dice_loss(pred, target)


def train(model, loader, optimizer, epochs=2):
    history = []
    for epoch in range(epochs):
        epoch_loss = 0.0
        for data, target in loader:
            optimizer.zero_grad()
            o1, o2, o3, o4, o5 = model(data)

            loss = 0
            for outval in [o1, o2, o3, o4, o5]:
                loss += get_hybrid_loss(outval, target)

            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        history.append(epoch_loss / len(loader))
    return history


def main():
    torch.manual_seed(0)
    model = UNet3PlusDS()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = [(torch.randn(2, 1, 16, 16), torch.rand(2, 1, 16, 16).round()) for _ in range(3)]
    history = train(model, loader, optimizer)
    return model, history


if __name__ == "__main__":
    model, history = main()
    assert all(p.grad is not None for p in model.parameters())
    assert all(isinstance(h, float) for h in history)
