# corpus: mean-teacher segmentation: the teacher is a deepcopy whose parameters still require grad, and the EMA rule is applied to the parameters themselves (no .data, no no_grad), an in-place op on a leaf
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/neuropoly/domainadaptation/issues/1
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyUNet(nn.Module):
    def __init__(self, ch=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU())
        self.down = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(ch, ch, 2, stride=2)
        self.head = nn.Conv2d(2 * ch, 1, 1)

    def forward(self, x):
        e = self.enc(x)
        u = self.up(F.relu(self.down(e)))
        return torch.sigmoid(self.head(torch.cat([e, u], dim=1)))


def dice_loss(pred, target, eps=1.0):
    inter = (pred * target).sum()
    return 1.0 - (2.0 * inter + eps) / (pred.sum() + target.sum() + eps)


def sigmoid_rampup(current, rampup_length=5):
    if rampup_length == 0:
        return 1.0
    phase = 1.0 - max(0.0, min(current, rampup_length)) / rampup_length
    return float(torch.exp(torch.tensor(-5.0 * phase * phase)))


def update_ema_variables(model, ema_model, alpha, global_step):
    alpha = min(1 - 1 / (global_step + 1), alpha)
    for ema_param, param in zip(ema_model.parameters(), model.parameters()):
        ema_param.mul_(alpha).add_((1 - alpha) * param)  # expect: GG108


def train(model, ema_model, batches, optimizer, consistency=1.0, ema_alpha=0.99):
    global_step = 0
    for epoch in range(2):
        model.train()
        ema_model.train()
        for src_img, src_mask, tgt_img in batches:
            noise = 0.05 * torch.randn_like(tgt_img)
            student_pred = model(src_img)
            student_tgt = model(tgt_img + noise)
            with torch.no_grad():
                teacher_tgt = ema_model(tgt_img)
            class_loss = dice_loss(student_pred, src_mask)
            weight = consistency * sigmoid_rampup(epoch)
            consistency_loss = weight * F.mse_loss(student_tgt, teacher_tgt)
            loss = class_loss + consistency_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            global_step += 1
            update_ema_variables(model, ema_model, ema_alpha, global_step)  # also: GG108
            print(f"epoch {epoch} step {global_step}: dice {class_loss.item():.4f} cons {consistency_loss.item():.5f}")


def make_domains(n=3, batch=2, size=8):
    batches = []
    for _ in range(n):
        src = torch.randn(batch, 1, size, size)
        mask = (src > 0.5).float()
        tgt = 0.8 * torch.randn(batch, 1, size, size) + 0.3  # shifted target domain
        batches.append((src, mask, tgt))
    return batches


def main():
    torch.manual_seed(0)
    model = TinyUNet()
    ema_model = copy.deepcopy(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, ema_model, make_domains(), optimizer)


if __name__ == "__main__":
    main()
