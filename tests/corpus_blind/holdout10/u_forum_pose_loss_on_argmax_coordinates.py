# corpus: coordinate-regression net whose train loop turns per-axis bin logits into coordinates with torch.argmax before the L1 loss, so the loss has no grad_fn
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/LZGMatrix/BOP19_CDPN_2019ICCV/issues/4
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

COOR_BIN = 16
H = W = 6


class CoordHead(nn.Module):
    """Predicts, for every pixel, a classification over COOR_BIN bins for x, y and z."""

    def __init__(self, in_ch=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(in_ch, 8, 3, padding=1), nn.ReLU())
        self.head_x = nn.Conv2d(8, COOR_BIN, 1)
        self.head_y = nn.Conv2d(8, COOR_BIN, 1)
        self.head_z = nn.Conv2d(8, COOR_BIN, 1)

    def forward(self, img):
        f = self.backbone(img)
        return self.head_x(f), self.head_y(f), self.head_z(f)


def decode_coords(output_coor_x_, output_coor_y_, output_coor_z_):
    output_coor_x_ = output_coor_x_.squeeze(0)
    output_coor_y_ = output_coor_y_.squeeze(0)
    output_coor_z_ = output_coor_z_.squeeze(0)
    output_coor_ = torch.stack([torch.argmax(output_coor_x_, axis=0),  # expect: GG106
                                torch.argmax(output_coor_y_, axis=0),
                                torch.argmax(output_coor_z_, axis=0)], axis=2)
    output_coor_ = 2.0 * output_coor_.float() / (COOR_BIN - 1.0) - 1.0  # [-1, 1]
    return output_coor_


def train(model, samples, epochs=2):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    log = {"loss": []}
    for epoch in range(epochs):
        for img, gt_coor, mask in samples:
            optimizer.zero_grad()
            out_x, out_y, out_z = model(img)
            pred_coor = decode_coords(out_x, out_y, out_z)
            loss = (F.l1_loss(pred_coor, gt_coor, reduction='none') * mask).mean()
            loss.backward()  # also: GG106
            optimizer.step()
            log["loss"].append(loss.item())
        print("epoch", epoch, sum(log["loss"]) / len(log["loss"]))
    return log


def main():
    samples = []
    for _ in range(3):
        img = torch.randn(1, 3, H, W)
        gt = torch.rand(H, W, 3) * 2 - 1
        mask = (torch.rand(H, W, 1) > 0.3).float()
        samples.append((img, gt, mask))
    model = CoordHead()
    train(model, samples)


if __name__ == "__main__":
    main()
