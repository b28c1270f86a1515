# corpus: YOLOv3-style detector trainer with freeze/unfreeze backbone phases; per-scale losses are summed and backpropagated once per batch, and the epoch totals accumulate loss.item() (train) and no_grad losses (validation) (correct)
# source: https://github.com/bubbliiiing/yolo3-pytorch/issues/3
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class DarkNetTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.LeakyReLU(0.1))
        self.stage2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1))
        self.stage3 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.LeakyReLU(0.1))

    def forward(self, x):
        x1 = self.stage1(x)
        x2 = self.stage2(x1)
        x3 = self.stage3(x2)
        return x1, x2, x3


class YoloBody(nn.Module):
    def __init__(self, num_anchors, num_classes):
        super().__init__()
        self.backbone = DarkNetTiny()
        out = num_anchors * (5 + num_classes)
        self.head0 = nn.Conv2d(64, out, 1)
        self.head1 = nn.Conv2d(32, out, 1)
        self.head2 = nn.Conv2d(16, out, 1)

    def forward(self, x):
        x2, x1, x0 = self.backbone(x)
        return self.head0(x0), self.head1(x1), self.head2(x2)


class YOLOLoss(nn.Module):
    def __init__(self, num_anchors, num_classes):
        super().__init__()
        self.num_anchors = num_anchors
        self.bbox_attrs = 5 + num_classes

    def forward(self, prediction, targets):
        bs, _, h, w = prediction.shape
        pred = prediction.view(bs, self.num_anchors, self.bbox_attrs, h, w).permute(0, 1, 3, 4, 2)
        obj_mask = torch.zeros(bs, self.num_anchors, h, w, dtype=torch.bool)
        for b, (cx, cy, _, _, cls) in enumerate(targets):
            obj_mask[b, 0, int(cy * h), int(cx * w)] = True
        conf_target = obj_mask.float()
        loss_conf = F.binary_cross_entropy_with_logits(pred[..., 4], conf_target, reduction="sum")
        loss_box = F.mse_loss(torch.sigmoid(pred[..., :2][obj_mask]), torch.full_like(pred[..., :2][obj_mask], 0.5), reduction="sum")
        cls_target = torch.tensor([int(t[4]) for t in targets])
        loss_cls = F.cross_entropy(pred[..., 5:][obj_mask], cls_target, reduction="sum")
        num_pos = int(obj_mask.sum().item())
        return loss_conf + loss_box + loss_cls, num_pos


def fit_ont_epoch(net, yolo_losses, optimizer, epoch, epoch_size, epoch_size_val, gen, genval, Epoch):
    total_loss = 0
    val_loss = 0
    net.train()
    for iteration, (images, targets) in enumerate(gen):
        if iteration >= epoch_size:
            break
        optimizer.zero_grad()
        outputs = net(images)
        losses = []
        num_pos_all = 0
        for i in range(3):
            loss_item, num_pos = yolo_losses[i](outputs[i], targets)
            losses.append(loss_item)
            num_pos_all += num_pos
        loss = sum(losses) / max(num_pos_all, 1)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        print("Epoch %d/%d iter %d total_loss %.4f" % (epoch + 1, Epoch, iteration, total_loss / (iteration + 1)))

    net.eval()
    for iteration, (images_val, targets_val) in enumerate(genval):
        if iteration >= epoch_size_val:
            break
        with torch.no_grad():
            outputs = net(images_val)
            losses = []
            num_pos_all = 0
            for i in range(3):
                loss_item, num_pos = yolo_losses[i](outputs[i], targets_val)
                losses.append(loss_item)
                num_pos_all += num_pos
            loss = sum(losses) / max(num_pos_all, 1)
            val_loss += loss.item()
    print("Total Loss: %.4f || Val Loss: %.4f " % (total_loss / (epoch_size + 1), val_loss / (epoch_size_val + 1)))


def make_batches(n, num_classes, bs=2):
    return [(torch.randn(bs, 3, 32, 32), [(0.5 * torch.rand(1).item(), 0.5 * torch.rand(1).item(), 0.2, 0.2, b % num_classes) for b in range(bs)]) for _ in range(n)]


if __name__ == "__main__":
    torch.manual_seed(0)
    num_classes, num_anchors = 4, 3
    model = YoloBody(num_anchors, num_classes)
    yolo_losses = [YOLOLoss(num_anchors, num_classes) for _ in range(3)]
    gen, gen_val = make_batches(2, num_classes), make_batches(1, num_classes)

    # freeze the backbone first
    lr, Init_Epoch, Freeze_Epoch = 1e-3, 0, 1
    optimizer = optim.Adam(model.parameters(), lr)
    lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.92)
    for param in model.backbone.parameters():
        param.requires_grad = False
    for epoch in range(Init_Epoch, Freeze_Epoch):
        fit_ont_epoch(model, yolo_losses, optimizer, epoch, len(gen), len(gen_val), gen, gen_val, Freeze_Epoch)
        lr_scheduler.step()

    # then unfreeze and fine-tune everything
    lr, Unfreeze_Epoch = 1e-4, 2
    optimizer = optim.Adam(model.parameters(), lr)
    lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.92)
    for param in model.backbone.parameters():
        param.requires_grad = True
    for epoch in range(Freeze_Epoch, Unfreeze_Epoch):
        fit_ont_epoch(model, yolo_losses, optimizer, epoch, len(gen), len(gen_val), gen, gen_val, Unfreeze_Epoch)
        lr_scheduler.step()
