# corpus: CDPN-style pose trainer predicts per-pixel x/y/z coordinate bins, takes torch.argmax to turn them into coordinates and builds the L1 loss on those, so the loss has no grad_fn
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/LZGMatrix/BOP19_CDPN_2019ICCV/issues/4
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Config:
    coor_bin: int = 16
    size: int = 8
    batch_size: int = 2
    lr: float = 1e-3


class CoorHead(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        # one bin-classification map per coordinate axis (+1 background bin)
        self.x_head = nn.Conv2d(16, cfg.coor_bin + 1, 1)
        self.y_head = nn.Conv2d(16, cfg.coor_bin + 1, 1)
        self.z_head = nn.Conv2d(16, cfg.coor_bin + 1, 1)

    def forward(self, img):
        feat = self.backbone(img)
        return self.x_head(feat), self.y_head(feat), self.z_head(feat)


class PoseTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = CoorHead(cfg)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)
        self.criterion = nn.L1Loss()

    def bins_to_coor(self, out_x, out_y, out_z):
        coor = torch.stack([torch.argmax(out_x, dim=1),
                            torch.argmax(out_y, dim=1),
                            torch.argmax(out_z, dim=1)], dim=1)  # expect: GG106
        coor[coor == self.cfg.coor_bin] = 0
        return 2.0 * coor.float() / (self.cfg.coor_bin - 1.0) - 1.0

    def train_step(self, img, gt_coor, mask):
        self.model.train()
        out_x, out_y, out_z = self.model(img)
        pred_coor = self.bins_to_coor(out_x, out_y, out_z)
        loss = self.criterion(pred_coor * mask, gt_coor * mask)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG106
        self.optimizer.step()
        return loss.item()


def fake_batch(cfg):
    img = torch.randn(cfg.batch_size, 3, cfg.size, cfg.size)
    gt = torch.rand(cfg.batch_size, 3, cfg.size, cfg.size) * 2 - 1
    mask = (torch.rand(cfg.batch_size, 1, cfg.size, cfg.size) > 0.3).float()
    return img, gt, mask


def main():
    torch.manual_seed(0)
    cfg = Config()
    trainer = PoseTrainer(cfg)
    for it in range(3):
        loss = trainer.train_step(*fake_batch(cfg))
        print(f"iter {it} coor loss {loss:.4f}")


if __name__ == "__main__":
    main()
