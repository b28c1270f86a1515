# corpus: SRFBN-style feedback network keeps its hidden feedback state only within one forward (reset at the start of each call) and returns a list of per-step outputs; the solver sums the step losses per sub-batch and calls backward once per sub-batch before a single optimizer step (correct)
# source: https://github.com/Paper99/SRFBN_CVPR19/issues/4
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedbackBlock(nn.Module):
    def __init__(self, nf=8):
        super().__init__()
        self.compress_in = nn.Conv2d(2 * nf, nf, 1)
        self.body = nn.Sequential(nn.Conv2d(nf, nf, 3, padding=1), nn.PReLU(), nn.Conv2d(nf, nf, 3, padding=1))
        self.should_reset = True
        self.last_hidden = None

    def forward(self, x):
        if self.should_reset:
            self.last_hidden = torch.zeros_like(x)
            self.should_reset = False
        h = self.compress_in(torch.cat([x, self.last_hidden], dim=1))
        out = self.body(h) + h
        self.last_hidden = out
        return out

    def reset_state(self):
        self.should_reset = True


class SRFBN(nn.Module):
    def __init__(self, nf=8, num_steps=3, scale=2):
        super().__init__()
        self.num_steps, self.scale = num_steps, scale
        self.conv_in = nn.Conv2d(3, nf, 3, padding=1)
        self.block = FeedbackBlock(nf)
        self.conv_out = nn.Conv2d(nf, 3, 3, padding=1)

    def forward(self, lr):
        self.block.reset_state()
        up = F.interpolate(lr, scale_factor=self.scale, mode="bilinear", align_corners=False)
        x = self.conv_in(lr)
        outs = []
        for _ in range(self.num_steps):
            h = self.block(x)
            outs.append(F.interpolate(self.conv_out(h), scale_factor=self.scale, mode="nearest") + up)
        return outs


class SRSolver:
    def __init__(self, model, split_batch=2):
        self.model = model
        self.split_batch = split_batch
        self.criterion_pix = nn.L1Loss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def train_step(self, lr, hr):
        self.model.train()
        self.optimizer.zero_grad()
        loss_batch = 0.0
        sub = lr.size(0) // self.split_batch
        for i in range(self.split_batch):
            split_lr, split_hr = lr[i * sub:(i + 1) * sub], hr[i * sub:(i + 1) * sub]
            outputs = self.model(split_lr)
            loss_steps = [self.criterion_pix(sr, split_hr) for sr in outputs]
            loss_sbatch = sum(loss_steps) / self.split_batch
            loss_sbatch.backward()
            loss_batch += loss_sbatch.item()
        self.optimizer.step()
        return loss_batch


def main():
    torch.manual_seed(0)
    solver = SRSolver(SRFBN())
    for it in range(3):
        hr = torch.rand(4, 3, 12, 12)
        lr = F.avg_pool2d(hr, 2)
        print(f"iter {it} loss {solver.train_step(lr, hr):.4f}")


if __name__ == "__main__":
    main()
