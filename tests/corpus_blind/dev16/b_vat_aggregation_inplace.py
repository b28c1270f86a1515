# corpus: Semantic-correspondence trainer whose cost-volume aggregation block adds the residual in place (x += identity) onto a ReLU output that ReLU saved for its backward, so the flow loss's backward fails the version check.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/Seokju-Cho/Volumetric-Aggregation-Transformer/issues/6
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureBackbone(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, dim, 3, padding=1)
        self.conv2 = nn.Conv2d(dim, dim, 3, stride=2, padding=1)

    def forward(self, img):
        return self.conv2(F.relu(self.conv1(img)))


class VolumetricAggregation(nn.Module):
    """4D cost-volume aggregation flattened to (B, H*W, H, W) and processed with 2D convs."""

    def __init__(self, hw):
        super().__init__()
        self.proj = nn.Conv2d(hw, hw, 3, padding=1)
        self.mix = nn.Conv2d(hw, hw, 1)
        self.relu = nn.ReLU()

    def forward(self, corr):
        identity = corr
        x = self.relu(self.proj(corr))
        x += identity  # expect: GG107
        x = self.mix(x)
        return x


class VAT(nn.Module):
    def __init__(self, img_size=8, dim=8):
        super().__init__()
        self.feat_size = img_size // 2
        hw = self.feat_size * self.feat_size
        self.backbone = FeatureBackbone(dim)
        self.aggregation = VolumetricAggregation(hw)
        coords = torch.stack(torch.meshgrid(torch.arange(self.feat_size), torch.arange(self.feat_size),
                                            indexing="ij"), dim=-1).float().view(-1, 2)
        self.register_buffer("coords", coords)

    def correlation(self, src_feat, trg_feat):
        src = F.normalize(src_feat.flatten(2), dim=1)
        trg = F.normalize(trg_feat.flatten(2), dim=1)
        corr = torch.einsum("bci,bcj->bij", src, trg)
        return corr.view(-1, corr.size(1), self.feat_size, self.feat_size)

    def soft_argmax(self, corr):
        b = corr.size(0)
        prob = F.softmax(corr.view(b, -1, self.feat_size * self.feat_size), dim=-1)
        return prob @ self.coords

    def forward(self, src_img, trg_img):
        corr = self.correlation(self.backbone(src_img), self.backbone(trg_img))
        corr = self.aggregation(corr)
        grid = self.soft_argmax(corr)
        return grid - self.coords


def EPE(flow_pred, flow_gt):
    return torch.norm(flow_pred - flow_gt, p=2, dim=-1).mean()


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)

    def train_epoch(self, loader, epoch):
        self.model.train()
        running = 0.0
        for src_img, trg_img, flow_gt in loader:
            self.optimizer.zero_grad()
            flow_pred = self.model(src_img, trg_img)
            loss = EPE(flow_pred, flow_gt)
            loss.backward()  # also: GG107
            self.optimizer.step()
            running += loss.item()
        print(f"epoch {epoch} EPE {running / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    model = VAT()
    loader = [(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8), torch.randn(2, 16, 2)) for _ in range(2)]
    trainer = Trainer(model)
    for epoch in range(2):
        trainer.train_epoch(loader, epoch)


if __name__ == "__main__":
    main()
