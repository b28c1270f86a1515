# corpus: speech-recognition Trainer (OpenASR shape) whose train_epoch sums each batch loss into tot_loss for logging with tot_loss = tot_loss + batch_loss, so the running total keeps every batch's autograd graph alive for the whole epoch (RAM grows until the process is killed)
# source: https://github.com/by2101/OpenASR/issues/12
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyTransformerASR(nn.Module):
    def __init__(self, feat_dim=20, d_model=32, vocab=12):
        super().__init__()
        self.frontend = nn.Linear(feat_dim, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, feats, feat_lens, targets):
        h = self.encoder(torch.tanh(self.frontend(feats)))
        log_probs = self.proj(h).log_softmax(-1).transpose(0, 1)
        target_lens = torch.full((targets.size(0),), targets.size(1), dtype=torch.long)
        return F.ctc_loss(log_probs, targets, feat_lens, target_lens, blank=0, zero_infinity=True)


def make_loader(n_batches=6, batch=4, frames=30, feat_dim=20, label_len=5, vocab=12):
    for _ in range(n_batches):
        feats = torch.randn(batch, frames, feat_dim)
        feat_lens = torch.full((batch,), frames, dtype=torch.long)
        targets = torch.randint(1, vocab, (batch, label_len))
        yield feats, feat_lens, targets


class Trainer:
    def __init__(self, model, lr=1e-3, grad_max_norm=5.0, print_inteval=2):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.grad_max_norm = grad_max_norm
        self.print_inteval = print_inteval
        self.step = 0
        self.last_tot_loss = None

    def train_epoch(self, loader):
        self.model.train()
        tot_loss = 0.
        tot_batches = 0
        t0 = time.time()
        for feats, feat_lens, targets in loader:
            batch_loss = self.model(feats, feat_lens, targets)
            self.optimizer.zero_grad()
            batch_loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_max_norm)
            if not math.isnan(grad_norm):
                self.optimizer.step()
            self.step += 1
            tot_loss = tot_loss + batch_loss  # expect: GG301
            tot_batches += 1
            if self.step % self.print_inteval == 0:
                print("step {} | avg loss {:.4f} | {:.2f}s".format(
                    self.step, float(tot_loss) / tot_batches, time.time() - t0))
        self.last_tot_loss = tot_loss
        return float(tot_loss) / tot_batches

    def train(self, num_epochs=2):
        for epoch in range(num_epochs):
            avg = self.train_epoch(make_loader())
            print("epoch {} finished, avg loss {:.4f}".format(epoch, avg))


def main():
    torch.manual_seed(0)
    trainer = Trainer(TinyTransformerASR())
    trainer.train()


if __name__ == "__main__":
    main()
