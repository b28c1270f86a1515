# corpus: MixMatch semi-supervised trainer (MixMatch-pytorch train.py shape: label guessing with sharpening, mixup of labeled and unlabeled batches, SemiLoss with linear rampup): label guessing was moved out of torch.no_grad() and relies on `targets_u.detach()` written as a bare statement, which discards its result, so the unlabeled consistency loss silently backpropagates into the guessed targets
# source: https://github.com/YU1ut/MixMatch-pytorch/issues/44
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class WideResNetLite(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.fc(self.features(x))


def linear_rampup(current, rampup_length=16):
    return float(np.clip(current / rampup_length, 0.0, 1.0))


class SemiLoss:
    def __call__(self, outputs_x, targets_x, outputs_u, targets_u, epoch, lambda_u=75):
        Lx = -torch.mean(torch.sum(F.log_softmax(outputs_x, dim=1) * targets_x, dim=1))
        Lu = torch.mean((torch.softmax(outputs_u, dim=1) - targets_u) ** 2)
        return Lx, Lu, lambda_u * linear_rampup(epoch)


def guess_labels(model, inputs_u, inputs_u2, T=0.5):
    outputs_u = model(inputs_u)
    outputs_u2 = model(inputs_u2)
    p = (torch.softmax(outputs_u, dim=1) + torch.softmax(outputs_u2, dim=1)) / 2
    pt = p ** (1 / T)
    targets_u = pt / pt.sum(dim=1, keepdim=True)
    targets_u.detach()  # expect: GG112
    return targets_u


def mixmatch_batch(model, inputs_x, targets_x, inputs_u, inputs_u2, num_classes=4, alpha=0.75):
    batch_size = inputs_x.size(0)
    targets_x = torch.zeros(batch_size, num_classes).scatter_(1, targets_x.view(-1, 1), 1)
    targets_u = guess_labels(model, inputs_u, inputs_u2)
    all_inputs = torch.cat([inputs_x, inputs_u, inputs_u2], dim=0)
    all_targets = torch.cat([targets_x, targets_u, targets_u], dim=0)
    lam = np.random.beta(alpha, alpha)
    lam = max(lam, 1 - lam)
    idx = torch.randperm(all_inputs.size(0))
    mixed_input = lam * all_inputs + (1 - lam) * all_inputs[idx]
    mixed_target = lam * all_targets + (1 - lam) * all_targets[idx]
    logits = model(mixed_input)
    return logits[:batch_size], mixed_target[:batch_size], logits[batch_size:], mixed_target[batch_size:]


def train(labeled, unlabeled, model, optimizer, criterion, epoch):
    losses = []
    for (inputs_x, targets_x), (inputs_u, inputs_u2) in zip(labeled, unlabeled):
        logits_x, mixed_tx, logits_u, mixed_tu = mixmatch_batch(model, inputs_x, targets_x, inputs_u, inputs_u2)
        Lx, Lu, w = criterion(logits_x, mixed_tx, logits_u, mixed_tu, epoch)
        loss = Lx + w * Lu
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    model = WideResNetLite()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    labeled = [(torch.randn(4, 3, 8, 8), torch.randint(0, 4, (4,))) for _ in range(3)]
    unlabeled = [(torch.randn(4, 3, 8, 8), torch.randn(4, 3, 8, 8)) for _ in range(3)]
    for epoch in range(2):
        print(f"epoch {epoch} loss {train(labeled, unlabeled, model, optimizer, SemiLoss(), epoch):.4f}")


if __name__ == "__main__":
    main()
