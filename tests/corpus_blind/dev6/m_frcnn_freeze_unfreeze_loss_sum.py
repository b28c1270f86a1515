# corpus: Faster R-CNN trainer with a frozen-backbone phase then an unfrozen phase; fit_ont_epoch sums the loss tensors returned by train_step (already backpropagated) into running totals with +=, keeping every iteration's graph alive for the whole epoch
# source: https://github.com/bubbliiiing/faster-rcnn-pytorch/issues/27
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class FasterRCNN(nn.Module):
    def __init__(self, num_classes, num_anchors=9):
        super().__init__()
        self.extractor = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
        )
        self.rpn_conv = nn.Conv2d(32, 32, 3, padding=1)
        self.rpn_loc = nn.Conv2d(32, num_anchors * 4, 1)
        self.rpn_score = nn.Conv2d(32, num_anchors * 2, 1)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(inplace=True))
        self.cls_loc = nn.Linear(64, (num_classes + 1) * 4)
        self.score = nn.Linear(64, num_classes + 1)

    def forward(self, x, n_rois=8):
        base_feature = self.extractor(x)
        h = F.relu(self.rpn_conv(base_feature))
        rpn_locs = self.rpn_loc(h).permute(0, 2, 3, 1).reshape(x.size(0), -1, 4)
        rpn_scores = self.rpn_score(h).permute(0, 2, 3, 1).reshape(x.size(0), -1, 2)
        pooled = F.adaptive_max_pool2d(base_feature, 4).repeat_interleave(n_rois, dim=0)
        fc7 = self.head(pooled)
        return rpn_locs, rpn_scores, self.cls_loc(fc7), self.score(fc7)

    def freeze_bn(self):
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()


class FasterRCNNTrainer(nn.Module):
    def __init__(self, faster_rcnn, optimizer):
        super().__init__()
        self.faster_rcnn = faster_rcnn
        self.optimizer = optimizer
        self.rpn_sigma = 1
        self.roi_sigma = 1

    def _fast_rcnn_loc_loss(self, pred_loc, gt_loc, sigma):
        return F.smooth_l1_loss(pred_loc, gt_loc, beta=1.0 / sigma ** 2)

    def forward(self, imgs, bboxes, labels, scale):
        n = imgs.shape[0]
        rpn_locs, rpn_scores, roi_cls_locs, roi_scores = self.faster_rcnn(imgs)
        gt_rpn_loc = torch.randn_like(rpn_locs)
        gt_rpn_label = torch.randint(0, 2, rpn_scores.shape[:2])
        rpn_loc_loss = self._fast_rcnn_loc_loss(rpn_locs, gt_rpn_loc, self.rpn_sigma)
        rpn_cls_loss = F.cross_entropy(rpn_scores.reshape(-1, 2), gt_rpn_label.reshape(-1))
        gt_roi_label = labels.repeat_interleave(roi_scores.shape[0] // n)
        gt_roi_loc = bboxes.repeat_interleave(roi_scores.shape[0] // n, dim=0)
        roi_loc = roi_cls_locs.view(roi_cls_locs.shape[0], -1, 4)[torch.arange(roi_cls_locs.shape[0]), gt_roi_label]
        roi_loc_loss = self._fast_rcnn_loc_loss(roi_loc, gt_roi_loc, self.roi_sigma)
        roi_cls_loss = F.cross_entropy(roi_scores, gt_roi_label)
        losses = [rpn_loc_loss, rpn_cls_loss, roi_loc_loss, roi_cls_loss]
        losses = losses + [sum(losses)]
        return losses

    def train_step(self, imgs, bboxes, labels, scale):
        self.optimizer.zero_grad()
        losses = self.forward(imgs, bboxes, labels, scale)
        losses[-1].backward()
        self.optimizer.step()
        return losses


def fit_ont_epoch(net, train_util, epoch, epoch_size, epoch_size_val, gen, genval, Epoch):
    total_loss = 0
    rpn_loc_loss = 0
    rpn_cls_loss = 0
    roi_loc_loss = 0
    roi_cls_loss = 0
    val_toal_loss = 0
    for iteration, batch in enumerate(gen):
        if iteration >= epoch_size:
            break
        imgs, boxes, labels = batch[0], batch[1], batch[2]
        losses = train_util.train_step(imgs, boxes, labels, 1)
        rpn_loc, rpn_cls, roi_loc, roi_cls, total = losses
        total_loss += total  # expect: GG301
        rpn_loc_loss += rpn_loc  # expect: GG301
        rpn_cls_loss += rpn_cls  # expect: GG301
        roi_loc_loss += roi_loc  # expect: GG301
        roi_cls_loss += roi_cls  # expect: GG301
        print("Epoch %d/%d iter %d total %.4f rpn_loc %.4f rpn_cls %.4f roi_loc %.4f roi_cls %.4f" % (
            epoch + 1, Epoch, iteration, total_loss.item() / (iteration + 1), rpn_loc_loss.item() / (iteration + 1),
            rpn_cls_loss.item() / (iteration + 1), roi_loc_loss.item() / (iteration + 1),
            roi_cls_loss.item() / (iteration + 1)))

    for iteration, batch in enumerate(genval):
        if iteration >= epoch_size_val:
            break
        imgs, boxes, labels = batch[0], batch[1], batch[2]
        with torch.no_grad():
            train_util.optimizer.zero_grad()
            losses = train_util.forward(imgs, boxes, labels, 1)
            _, _, _, _, val_total = losses
            val_toal_loss += val_total
    print("Total Loss: %.4f || Val Loss: %.4f " % (total_loss / (epoch_size + 1), val_toal_loss / (epoch_size_val + 1)))


def make_batches(n, num_classes):
    return [(torch.randn(2, 3, 16, 16), torch.randn(2, 4), torch.randint(1, num_classes + 1, (2,))) for _ in range(n)]


if __name__ == "__main__":
    NUM_CLASSES = 20
    model = FasterRCNN(NUM_CLASSES)
    net = model.train()
    gen = make_batches(3, NUM_CLASSES)
    gen_val = make_batches(1, NUM_CLASSES)
    epoch_size, epoch_size_val = len(gen), len(gen_val)

    # ------------------------------------#
    #   freeze the backbone for the first epochs
    # ------------------------------------#
    if True:
        lr = 1e-4
        Init_Epoch = 0
        Freeze_Epoch = 1
        optimizer = optim.Adam(net.parameters(), lr, weight_decay=5e-4)
        lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.95)
        for param in model.extractor.parameters():
            param.requires_grad = False
        model.freeze_bn()
        train_util = FasterRCNNTrainer(model, optimizer)
        for epoch in range(Init_Epoch, Freeze_Epoch):
            fit_ont_epoch(net, train_util, epoch, epoch_size, epoch_size_val, gen, gen_val, Freeze_Epoch)
            lr_scheduler.step()

    # ------------------------------------#
    #   unfreeze and fine-tune everything
    # ------------------------------------#
    if True:
        lr = 1e-5
        Freeze_Epoch = 1
        Unfreeze_Epoch = 2
        optimizer = optim.Adam(net.parameters(), lr, weight_decay=5e-4)
        lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.95)
        for param in model.extractor.parameters():
            param.requires_grad = True
        model.freeze_bn()
        train_util = FasterRCNNTrainer(model, optimizer)
        for epoch in range(Freeze_Epoch, Unfreeze_Epoch):
            fit_ont_epoch(net, train_util, epoch, epoch_size, epoch_size_val, gen, gen_val, Unfreeze_Epoch)
            lr_scheduler.step()
