# corpus: Swin-Transformer-style train_one_epoch with ACCUMULATION_STEPS: loss scaled by the step count, zero_grad and step only every k micro-batches, lr scheduler stepped per update with epoch * num_steps + idx, AverageMeters fed with .item() (correct)
# source: https://github.com/microsoft/Swin-Transformer/issues/185
import argparse
import time
from types import SimpleNamespace

import torch
import torch.nn as nn


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0.0
        self.avg = 0.0
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class PatchEmbed(nn.Module):
    def __init__(self, in_chans=3, embed_dim=32, patch_size=4):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x):
        x = self.proj(x).flatten(2).transpose(1, 2)
        return self.norm(x)


class TinySwin(nn.Module):
    def __init__(self, num_classes=10, embed_dim=32, depth=2, heads=2):
        super().__init__()
        self.patch_embed = PatchEmbed(embed_dim=embed_dim)
        layer = nn.TransformerEncoderLayer(embed_dim, heads, dim_feedforward=2 * embed_dim, dropout=0.0, batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        x = self.layers(self.patch_embed(x))
        return self.head(self.norm(x).mean(1))


class WarmupCosineScheduler:
    def __init__(self, optimizer, warmup_steps, total_steps, base_lr):
        self.optimizer = optimizer
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps
        self.base_lr = base_lr

    def step_update(self, num_updates):
        if num_updates < self.warmup_steps:
            lr = self.base_lr * (num_updates + 1) / self.warmup_steps
        else:
            progress = (num_updates - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
            lr = 0.5 * self.base_lr * (1 + torch.cos(torch.tensor(progress * 3.14159)).item())
        for group in self.optimizer.param_groups:
            group["lr"] = lr


def get_grad_norm(parameters, norm_type=2):
    parameters = [p for p in parameters if p.grad is not None]
    total = 0.0
    for p in parameters:
        total += p.grad.data.norm(norm_type).item() ** norm_type
    return total ** (1.0 / norm_type)


def train_one_epoch(config, model, criterion, data_loader, optimizer, epoch, lr_scheduler):
    model.train()
    optimizer.zero_grad()
    num_steps = len(data_loader)
    batch_time = AverageMeter()
    loss_meter = AverageMeter()
    norm_meter = AverageMeter()
    start = end = time.time()
    for idx, (samples, targets) in enumerate(data_loader):
        outputs = model(samples)
        if config.TRAIN.ACCUMULATION_STEPS > 1:
            loss = criterion(outputs, targets)
            loss = loss / config.TRAIN.ACCUMULATION_STEPS
            loss.backward()
            if config.TRAIN.CLIP_GRAD:
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), config.TRAIN.CLIP_GRAD).item()
            else:
                grad_norm = get_grad_norm(model.parameters())
            if (idx + 1) % config.TRAIN.ACCUMULATION_STEPS == 0:
                optimizer.step()
                optimizer.zero_grad()
                lr_scheduler.step_update(epoch * num_steps + idx)
        else:
            loss = criterion(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            if config.TRAIN.CLIP_GRAD:
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), config.TRAIN.CLIP_GRAD).item()
            else:
                grad_norm = get_grad_norm(model.parameters())
            optimizer.step()
            lr_scheduler.step_update(epoch * num_steps + idx)
        loss_meter.update(loss.item(), targets.size(0))
        norm_meter.update(grad_norm)
        batch_time.update(time.time() - end)
        end = time.time()
        if idx % config.PRINT_FREQ == 0:
            lr = optimizer.param_groups[0]["lr"]
            print(f"Train: [{epoch}][{idx}/{num_steps}] lr {lr:.6f} loss {loss_meter.val:.4f} ({loss_meter.avg:.4f}) grad_norm {norm_meter.val:.4f}")
    print(f"EPOCH {epoch} training takes {time.time() - start:.2f}s")


@torch.no_grad()
def validate(model, data_loader):
    criterion = nn.CrossEntropyLoss()
    model.eval()
    loss_meter = AverageMeter()
    acc1_meter = AverageMeter()
    for images, target in data_loader:
        output = model(images)
        loss = criterion(output, target)
        acc1 = (output.argmax(1) == target).float().mean() * 100
        loss_meter.update(loss.item(), target.size(0))
        acc1_meter.update(acc1.item(), target.size(0))
    return acc1_meter.avg, loss_meter.avg


def main():
    parser = argparse.ArgumentParser("Swin Transformer training")
    parser.add_argument("--accumulation-steps", type=int, default=2)
    args = parser.parse_args([])
    config = SimpleNamespace(TRAIN=SimpleNamespace(ACCUMULATION_STEPS=args.accumulation_steps, CLIP_GRAD=5.0, EPOCHS=2, BASE_LR=5e-4, WARMUP_STEPS=2), PRINT_FREQ=2)
    torch.manual_seed(0)
    model = TinySwin()
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.TRAIN.BASE_LR, weight_decay=0.05)
    train_loader = [(torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))) for _ in range(4)]
    val_loader = [(torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))) for _ in range(2)]
    lr_scheduler = WarmupCosineScheduler(optimizer, config.TRAIN.WARMUP_STEPS, config.TRAIN.EPOCHS * len(train_loader), config.TRAIN.BASE_LR)
    for epoch in range(config.TRAIN.EPOCHS):
        train_one_epoch(config, model, criterion, train_loader, optimizer, epoch, lr_scheduler)
        acc1, loss = validate(model, val_loader)
        print(f"Accuracy of the network on the val images: {acc1:.1f}%  loss {loss:.4f}")


if __name__ == "__main__":
    main()
