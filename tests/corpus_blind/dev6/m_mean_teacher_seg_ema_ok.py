# corpus: mean-teacher semi-supervised segmentation: the EMA teacher is a deepcopy whose parameters are detach_()ed, its predictions are detached targets for the consistency loss, and update_ema_variables blends weights through .data after optimizer.step() (correct)
# source: https://github.com/leanderloew/Semi-Supervised-Segmentation-Pytorch/issues/1
import argparse
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallUNet(nn.Module):
    def __init__(self, in_ch=1, out_ch=1):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(in_ch, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.pool = nn.MaxPool2d(2)
        self.mid = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True))
        self.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.out = nn.Conv2d(32, out_ch, 1)

    def forward(self, x):
        d = self.down(x)
        m = self.mid(self.pool(d))
        u = self.up(m)
        return self.out(torch.cat([u, d], dim=1))


def create_model(ema=False):
    model = SmallUNet()
    if ema:
        for param in model.parameters():
            param.detach_()
    return model


def sigmoid_rampup(current, rampup_length):
    if rampup_length == 0:
        return 1.0
    current = np.clip(current, 0.0, rampup_length)
    phase = 1.0 - current / rampup_length
    return float(np.exp(-5.0 * phase * phase))


def get_current_consistency_weight(epoch, args):
    return args.consistency * sigmoid_rampup(epoch, args.consistency_rampup)


def update_ema_variables(model, ema_model, alpha, global_step):
    # Use the true average until the exponential average is more correct
    alpha = min(1 - 1 / (global_step + 1), alpha)
    for ema_param, param in zip(ema_model.parameters(), model.parameters()):
        ema_param.data.mul_(alpha).add_(param.data, alpha=1 - alpha)


def train(loader, model, ema_model, optimizer, epoch, global_step, args):
    model.train()
    ema_model.train()
    for i, (inputs, ema_inputs, masks, n_labeled) in enumerate(loader):
        model_out = model(inputs)
        ema_out = ema_model(ema_inputs)
        ema_logit = ema_out.detach()

        class_loss = F.binary_cross_entropy_with_logits(model_out[:n_labeled], masks)
        consistency_weight = get_current_consistency_weight(epoch, args)
        consistency_loss = consistency_weight * F.mse_loss(torch.sigmoid(model_out), torch.sigmoid(ema_logit))
        loss = class_loss + consistency_loss

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1
        update_ema_variables(model, ema_model, args.ema_decay, global_step)
        print("epoch %d iter %d class %.4f consistency %.6f" % (epoch, i, class_loss.item(), consistency_loss.item()))
    return global_step


def make_loader(n_batches=2, n_labeled=2, n_unlabeled=2):
    loader = []
    for _ in range(n_batches):
        images = torch.randn(n_labeled + n_unlabeled, 1, 16, 16)
        noisy = images + 0.1 * torch.randn_like(images)
        masks = (torch.rand(n_labeled, 1, 16, 16) > 0.5).float()
        loader.append((images, noisy, masks, n_labeled))
    return loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--ema-decay", type=float, default=0.99)
    parser.add_argument("--consistency", type=float, default=10.0)
    parser.add_argument("--consistency-rampup", type=float, default=1.0)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])

    torch.manual_seed(0)
    model = create_model()
    ema_model = create_model(ema=True)
    ema_model.load_state_dict(copy.deepcopy(model.state_dict()))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loader = make_loader()
    global_step = 0
    for epoch in range(args.epochs):
        global_step = train(loader, model, ema_model, optimizer, epoch, global_step, args)


if __name__ == "__main__":
    main()
