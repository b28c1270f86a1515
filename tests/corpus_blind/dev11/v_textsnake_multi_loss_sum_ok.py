# corpus: TextSnake-style text detector: TextLoss returns five losses from one FCN forward (with OHEM and an out-of-place sin/cos renormalisation), the trainer sums them and backpropagates once; correct
# source: https://discuss.pytorch.org/t/how-and-where-does-pytorch-keep-track-of-everything-while-computing-and-propagating-losses-through-a-network/69720
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextNet(nn.Module):
    def __init__(self, output_channel=7):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.predict = nn.Sequential(
            nn.Conv2d(16, 16, kernel_size=3, stride=1, padding=1),
            nn.Conv2d(16, output_channel, kernel_size=1, stride=1, padding=0),
        )

    def forward(self, x):
        return self.predict(self.backbone(x))


class TextLoss(nn.Module):
    def ohem(self, predict, target, train_mask, negative_ratio=3.0):
        pos = (target * train_mask).bool()
        neg = ((1 - target) * train_mask).bool()
        n_pos = pos.float().sum()
        if n_pos.item() > 0:
            loss_pos = F.cross_entropy(predict[pos], target[pos], reduction="sum")
            loss_neg = F.cross_entropy(predict[neg], target[neg], reduction="none")
            n_neg = min(int(neg.float().sum().item()), int(negative_ratio * n_pos.float()))
        else:
            loss_pos = 0.0
            loss_neg = F.cross_entropy(predict[neg], target[neg], reduction="none")
            n_neg = 10
        loss_neg, _ = torch.topk(loss_neg, n_neg)
        return (loss_pos + loss_neg.sum()) / (n_pos + n_neg).float()

    def forward(self, input, tr_mask, tcl_mask, sin_map, cos_map, radii_map, train_mask):
        tr_pred = input[:, :2].permute(0, 2, 3, 1).contiguous().view(-1, 2)
        tcl_pred = input[:, 2:4].permute(0, 2, 3, 1).contiguous().view(-1, 2)
        sin_pred = input[:, 4].contiguous().view(-1)
        cos_pred = input[:, 5].contiguous().view(-1)
        # regularize sin and cos: sum to 1
        scale = torch.sqrt(1.0 / (sin_pred ** 2 + cos_pred ** 2))
        sin_pred = sin_pred * scale
        cos_pred = cos_pred * scale
        radii_pred = input[:, 6].contiguous().view(-1)
        train_mask, tr_mask, tcl_mask = train_mask.view(-1), tr_mask.view(-1), tcl_mask.view(-1)
        radii_map, sin_map, cos_map = radii_map.view(-1), sin_map.view(-1), cos_map.view(-1)
        loss_tr = self.ohem(tr_pred, tr_mask.long(), train_mask.long())
        tcl_idx = tr_mask * train_mask > 0
        loss_tcl = F.cross_entropy(tcl_pred[tcl_idx], tcl_mask[tcl_idx].long())
        idx = tcl_mask * train_mask > 0
        loss_radii = F.smooth_l1_loss(radii_pred[idx] / (radii_map[idx] + 1e-3), torch.ones_like(radii_map[idx]))
        loss_sin = F.smooth_l1_loss(sin_pred[idx], sin_map[idx])
        loss_cos = F.smooth_l1_loss(cos_pred[idx], cos_map[idx])
        return loss_tr, loss_tcl, loss_radii, loss_sin, loss_cos


def fake_batch(b=2, h=6, w=6):
    img = torch.randn(b, 3, h, w)
    tr_mask = (torch.rand(b, h, w) > 0.5).float()
    tcl_mask = tr_mask * (torch.rand(b, h, w) > 0.3).float()
    theta = torch.rand(b, h, w) * 3.14
    return img, tr_mask, tcl_mask, torch.sin(theta), torch.cos(theta), 1 + torch.rand(b, h, w), torch.ones(b, h, w)


def main():
    torch.manual_seed(0)
    model, criterion = TextNet(), TextLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    w0 = model.predict[1].weight.detach().clone()
    names = ("tr", "tcl", "radii", "sin", "cos")
    for it in range(4):
        img, tr_mask, tcl_mask, sin_map, cos_map, radius_map, train_mask = fake_batch()
        output = model(img)
        losses = criterion(output, tr_mask, tcl_mask, sin_map, cos_map, radius_map, train_mask)
        loss = sum(losses)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(it, round(loss.item(), 4), {n: round(v.item(), 3) for n, v in zip(names, losses)})
    print("head weight changed:", (model.predict[1].weight - w0).abs().max().item() > 0)


if __name__ == "__main__":
    main()
