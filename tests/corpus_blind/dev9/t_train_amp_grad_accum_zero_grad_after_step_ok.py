# corpus: image-classifier fine-tuning with autocast + GradScaler and gradient accumulation; zero_grad runs right after the scaler step every N micro-batches and the meter accumulates loss.item() (correct)
# source: https://github.com/huggingface/accelerate/issues/616
import torch
import torch.nn as nn


class AverageMeter:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = self.sum = self.count = 0.0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class SmallCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, n_classes)

    def forward(self, x):
        return self.fc(self.body(x))


def train_one_epoch(model, loader, criterion, optimizer, scaler, accum_steps=2):
    model.train()
    loss_meter, acc_meter = AverageMeter("loss"), AverageMeter("acc")
    optimizer.zero_grad(set_to_none=True)
    for i, (images, targets) in enumerate(loader):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            logits = model(images)
            loss = criterion(logits.float(), targets)
        scaler.scale(loss / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        loss_meter.update(loss.item(), images.shape[0])
        acc_meter.update((logits.argmax(1) == targets).float().mean().item(), images.shape[0])
    return loss_meter.avg, acc_meter.avg


def main():
    torch.manual_seed(0)
    model = SmallCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu")
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    loader = [(torch.randn(4, 3, 12, 12), torch.randint(0, 5, (4,))) for _ in range(6)]
    for epoch in range(2):
        print(epoch, train_one_epoch(model, loader, criterion, optimizer, scaler))


if __name__ == "__main__":
    main()
