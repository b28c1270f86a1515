# corpus: video-stabilisation LSTM keeps (hx, cx) as module attributes across the frames of a clip and trains with one backward per frame; retain_graph=True silences the double-backward error but the retained graph of earlier frames still holds the weights the optimizer just stepped
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/googleinterns/deep-stabilization/issues/10
import argparse

import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_


class StabilizationNet(nn.Module):
    def __init__(self, feature_dim=12, hidden=24, out_dim=4):
        super().__init__()
        self.hidden = hidden
        self.encoder = nn.Sequential(nn.Linear(feature_dim, hidden), nn.ReLU())
        self.LSTM = nn.LSTMCell(hidden, hidden)
        self.decoder = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, out_dim))
        self.hx = None
        self.cx = None

    def init_hidden(self, batch_size):
        self.hx = torch.zeros(batch_size, self.hidden)
        self.cx = torch.zeros(batch_size, self.hidden)

    def forward(self, x):
        x = self.encoder(x)
        self.hx, self.cx = self.LSTM(x, (self.hx, self.cx))
        out = self.decoder(self.hx)
        return out / out.norm(dim=1, keepdim=True)  # unit quaternion of the virtual camera


class Model:
    def __init__(self, args):
        self.net = StabilizationNet()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.lr)


def quaternion_loss(pred, target):
    return (1.0 - (pred * target).sum(dim=1).abs()).mean()


def run_epoch(model, loader, clip_norm, is_training=True):
    total = 0.0
    for i, (real_inputs, real_targets) in enumerate(loader):
        batch_size, step, _ = real_inputs.shape
        model.net.init_hidden(batch_size)
        for j in range(step):
            out = model.net(real_inputs[:, j])
            loss = quaternion_loss(out, real_targets[:, j])
            if is_training:
                model.optimizer.zero_grad()
                loss.backward(retain_graph=True)  # expect: GG302
                clip_grad_norm_(model.net.parameters(), clip_norm)
                model.optimizer.step()
            total += loss.item()
    return total / len(loader)


def make_loader(n_clips, batch_size, step, feature_dim=12):
    loader = []
    for _ in range(n_clips):
        gyro = torch.randn(batch_size, step, feature_dim)
        target = torch.randn(batch_size, step, 4)
        loader.append((gyro, target / target.norm(dim=-1, keepdim=True)))
    return loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--clip-norm", type=float, default=1.0)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args([])

    torch.manual_seed(0)
    model = Model(args)
    loader = make_loader(n_clips=2, batch_size=3, step=5)
    for epoch in range(args.epochs):
        train_loss = run_epoch(model, loader, args.clip_norm, is_training=True)
        print(f"epoch {epoch}: {train_loss:.4f}")


if __name__ == "__main__":
    main()
