# corpus: Openpilot-style GRU trajectory planner trained one frame at a time with an optimizer step every N frames; the GRU hidden state is carried into the next N-frame chunk without being detached, so the second chunk's backward runs into the first chunk's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/OpenDriveLab/Openpilot-Deepdive/issues/6
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class PlanningDataset(Dataset):
    def __init__(self, n_seqs=2, seq_len=8, num_pts=5):
        g = torch.Generator().manual_seed(0)
        self.imgs = torch.randn(n_seqs, seq_len, 3, 8, 8, generator=g)
        self.poses = torch.randn(n_seqs, seq_len, num_pts, 3, generator=g)

    def __len__(self):
        return self.imgs.shape[0]

    def __getitem__(self, idx):
        return {"seq_input_img": self.imgs[idx], "seq_future_poses": self.poses[idx]}


class SequencePlanningNetwork(nn.Module):
    def __init__(self, M=3, num_pts=5, hidden=16):
        super().__init__()
        self.M = M
        self.num_pts = num_pts
        self.optimize_per_n_step = 4
        self.backbone = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, hidden), nn.ReLU())
        self.gru = nn.GRU(input_size=hidden, hidden_size=hidden, num_layers=2, batch_first=False)
        self.plan_head = nn.Linear(hidden, M * (num_pts * 3 + 1))

    def forward(self, x, hidden):
        features = self.backbone(x).unsqueeze(0)
        out, hidden = self.gru(features, hidden)
        raw = self.plan_head(out[0]).view(-1, self.M, self.num_pts * 3 + 1)
        pred_cls = raw[:, :, 0]
        pred_trajectory = raw[:, :, 1:].reshape(-1, self.M, self.num_pts, 3)
        return pred_cls, pred_trajectory, hidden


class MultipleTrajectoryPredictionLoss(nn.Module):
    def forward(self, pred_cls, pred_trajectory, gt):
        dist = ((pred_trajectory - gt[:, None]) ** 2).mean(dim=(2, 3))
        best = dist.argmin(dim=1)
        cls_loss = F.cross_entropy(pred_cls, best)
        reg_loss = dist.gather(1, best[:, None]).squeeze(1)
        return cls_loss, reg_loss


def train(args, model, loader, optimizer, loss_fn):
    model.train()
    num_steps = 0
    for epoch in range(args.epochs):
        for batch_idx, data in enumerate(loader):
            seq_inputs, seq_labels = data["seq_input_img"], data["seq_future_poses"]
            bs = seq_labels.size(0)
            seq_length = seq_labels.size(1)
            hidden = torch.zeros((2, bs, 16))
            total_loss = 0
            for t in range(seq_length):
                num_steps += 1
                inputs, labels = seq_inputs[:, t], seq_labels[:, t]
                pred_cls, pred_trajectory, hidden = model(inputs, hidden)  # expect: GG104
                cls_loss, reg_loss = loss_fn(pred_cls, pred_trajectory, labels)
                total_loss += (cls_loss + args.mtp_alpha * reg_loss.mean()) / model.optimize_per_n_step
                if (t + 1) % model.optimize_per_n_step == 0:
                    optimizer.zero_grad()
                    total_loss.backward()  # also: GG104
                    optimizer.step()
                    print(f"epoch {epoch} batch {batch_idx} step {num_steps} loss {total_loss.item():.4f}")
                    total_loss = 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--mtp_alpha", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args([])
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    model = SequencePlanningNetwork()
    loader = DataLoader(PlanningDataset(), batch_size=2, shuffle=False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    train(args, model, loader, optimizer, MultipleTrajectoryPredictionLoss())


if __name__ == "__main__":
    main()
