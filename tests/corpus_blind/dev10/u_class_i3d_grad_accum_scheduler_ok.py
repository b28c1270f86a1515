# corpus: I3D-style trainer accumulates gradients over num_steps_per_update batches (loss divided by the count), steps the optimizer, zeroes grads and steps the LR scheduler only on update boundaries, and logs loss.item() (correct)
# source: https://github.com/piergiaj/pytorch-i3d/issues/44
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyI3D(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.conv = nn.Conv3d(3, 8, kernel_size=3, padding=1)
        self.logits = nn.Conv3d(8, num_classes, kernel_size=1)

    def forward(self, x):
        x = F.relu(self.conv(x))
        return self.logits(x).mean(dim=(3, 4))  # per-frame logits: (B, C, T)


class Trainer:
    def __init__(self, model, num_steps_per_update=4, max_steps=6):
        self.model = model
        self.num_steps_per_update = num_steps_per_update
        self.max_steps = max_steps
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-7)
        self.lr_sched = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, [3, 5])

    def compute_loss(self, inputs, labels):
        per_frame_logits = self.model(inputs)
        loc_loss = F.binary_cross_entropy_with_logits(per_frame_logits, labels)
        cls_loss = F.binary_cross_entropy_with_logits(per_frame_logits.max(dim=2)[0], labels.max(dim=2)[0])
        return 0.5 * loc_loss + 0.5 * cls_loss

    def run(self, dataloader):
        steps = 0
        num_iter = 0
        tot_loss = 0.0
        self.optimizer.zero_grad()
        while steps < self.max_steps:
            self.model.train()
            for inputs, labels in dataloader:
                num_iter += 1
                loss = self.compute_loss(inputs, labels) / self.num_steps_per_update
                tot_loss += loss.item()
                loss.backward()
                if num_iter == self.num_steps_per_update:
                    steps += 1
                    num_iter = 0
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                    self.lr_sched.step()
                    if steps % 2 == 0:
                        print(f"step {steps} tot loss {tot_loss / 2:.4f} lr {self.lr_sched.get_last_lr()[0]:.4f}")
                        tot_loss = 0.0
                    if steps >= self.max_steps:
                        break


def make_loader(n=8, classes=5, frames=4):
    data = []
    for _ in range(n):
        x = torch.randn(2, 3, frames, 8, 8)
        y = torch.zeros(2, classes, frames)
        y[:, torch.randint(0, classes, (1,)).item(), :] = 1.0
        data.append((x, y))
    return data


def main():
    torch.manual_seed(0)
    Trainer(TinyI3D()).run(make_loader())


if __name__ == "__main__":
    main()
