# corpus: A single-object segmentation trainer computes the per-batch dice metric with autograd on and sums it into running_metric and the metric history, keeping every batch's graph alive.
# source: https://github.com/PacktPublishing/PyTorch-Computer-Vision-Cookbook/issues/11
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class SegNet(nn.Module):
    def __init__(self, params):
        super(SegNet, self).__init__()
        C_in, H_in, W_in = params["input_shape"]
        init_f = params["initial_filters"]
        num_outputs = params["num_outputs"]
        self.conv1 = nn.Conv2d(C_in, init_f, kernel_size=3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(init_f, 2 * init_f, kernel_size=3, stride=1, padding=1)
        self.conv3 = nn.Conv2d(2 * init_f, 4 * init_f, kernel_size=3, padding=1)
        self.upsample = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv_up1 = nn.Conv2d(4 * init_f, 2 * init_f, kernel_size=3, padding=1)
        self.conv_up2 = nn.Conv2d(2 * init_f, init_f, kernel_size=3, padding=1)
        self.conv_out = nn.Conv2d(init_f, num_outputs, kernel_size=3, padding=1)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
        x = F.relu(self.conv3(x))
        x = self.upsample(x)
        x = F.relu(self.conv_up1(x))
        x = self.upsample(x)
        x = F.relu(self.conv_up2(x))
        return self.conv_out(x)


def dice_loss(pred, target, smooth=1e-5):
    intersection = (pred * target).sum(dim=(2, 3))
    union = pred.sum(dim=(2, 3)) + target.sum(dim=(2, 3))
    dice = 2.0 * (intersection + smooth) / (union + smooth)
    loss = 1.0 - dice
    return loss.sum(), dice.sum()


def loss_func(pred, target):
    bce = F.binary_cross_entropy_with_logits(pred, target, reduction="sum")
    pred = torch.sigmoid(pred)
    dlv, _ = dice_loss(pred, target)
    return bce + dlv


def loss_batch(loss_func, output, target, opt=None):
    loss = loss_func(output, target)
    pred = torch.sigmoid(output)
    _, metric_b = dice_loss(pred, target)
    if opt is not None:
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item(), metric_b


def loss_epoch(model, loss_func, dataset_dl, sanity_check=False, opt=None):
    running_loss = 0.0
    running_metric = 0.0
    len_data = sum(len(xb) for xb, _ in dataset_dl)
    for xb, yb in dataset_dl:
        output = model(xb)
        loss_b, metric_b = loss_batch(loss_func, output, yb, opt)
        running_loss += loss_b
        if metric_b is not None:
            running_metric += metric_b  # expect: GG301
        if sanity_check is True:
            break
    loss = running_loss / float(len_data)
    metric = running_metric / float(len_data)
    return loss, metric


def get_lr(opt):
    for param_group in opt.param_groups:
        return param_group["lr"]


def train_val(model, params):
    num_epochs = params["num_epochs"]
    loss_func = params["loss_func"]
    opt = params["optimizer"]
    train_dl = params["train_dl"]
    val_dl = params["val_dl"]
    lr_scheduler = params["lr_scheduler"]

    loss_history = {"train": [], "val": []}
    metric_history = {"train": [], "val": []}
    best_model_wts = copy.deepcopy(model.state_dict())
    best_loss = float("inf")

    for epoch in range(num_epochs):
        current_lr = get_lr(opt)
        print("Epoch {}/{}, current lr={}".format(epoch, num_epochs - 1, current_lr))
        model.train()
        train_loss, train_metric = loss_epoch(model, loss_func, train_dl, False, opt)
        loss_history["train"].append(train_loss)
        metric_history["train"].append(train_metric)  # also: GG301

        model.eval()
        with torch.no_grad():
            val_loss, val_metric = loss_epoch(model, loss_func, val_dl, False)
        loss_history["val"].append(val_loss)
        metric_history["val"].append(val_metric)

        if val_loss < best_loss:
            best_loss = val_loss
            best_model_wts = copy.deepcopy(model.state_dict())
        lr_scheduler.step(val_loss)
        print("train loss: %.6f, dice: %.2f" % (train_loss, 100 * float(train_metric)))
        print("val loss: %.6f, dice: %.2f" % (val_loss, 100 * float(val_metric)))

    model.load_state_dict(best_model_wts)
    return model, loss_history, metric_history


def make_loader(n_batches, batch_size=4, size=32):
    batches = []
    for _ in range(n_batches):
        x = torch.rand(batch_size, 1, size, size)
        y = (x > 0.6).float()
        batches.append((x, y))
    return batches


def main():
    torch.manual_seed(0)
    params_model = {"input_shape": (1, 32, 32), "initial_filters": 8, "num_outputs": 1}
    model = SegNet(params_model)
    opt = optim.Adam(model.parameters(), lr=3e-4)
    lr_scheduler = optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=20)
    params_train = {
        "num_epochs": 3,
        "optimizer": opt,
        "loss_func": loss_func,
        "train_dl": make_loader(4),
        "val_dl": make_loader(2),
        "lr_scheduler": lr_scheduler,
    }
    train_val(model, params_train)


if __name__ == "__main__":
    main()
