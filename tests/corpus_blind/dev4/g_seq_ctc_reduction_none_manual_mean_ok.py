# corpus: BiGRU CTC speech trainer using CTCLoss(reduction="none"); per-utterance losses are normalised by target length and averaged by hand before one backward, per-utterance values are logged through detach().numpy() and the epoch total through .item() (correct)
# source: https://github.com/pytorch/pytorch/issues/19838
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as nn


@dataclass
class TrainConfig:
    n_feats: int = 13
    n_hidden: int = 16
    n_classes: int = 12
    lr: float = 1e-3
    epochs: int = 2
    history: list = field(default_factory=list)


class SpeechModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.rnn = nn.GRU(cfg.n_feats, cfg.n_hidden, bidirectional=True)
        self.fc = nn.Linear(2 * cfg.n_hidden, cfg.n_classes)

    def forward(self, feats):
        out, _ = self.rnn(feats)
        return self.fc(out).log_softmax(dim=-1)


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = SpeechModel(cfg)
        self.criterion = nn.CTCLoss(blank=0, reduction="none", zero_infinity=True)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)

    def compute_loss(self, batch):
        feats, targets, input_lengths, target_lengths = batch
        log_probs = self.model(feats)
        per_utt = self.criterion(log_probs, targets, input_lengths, target_lengths)
        per_utt = per_utt / target_lengths.float()
        loss = sum(per_utt) / len(per_utt)
        return loss, per_utt

    def train_step(self, batch):
        self.optimizer.zero_grad()
        loss, per_utt = self.compute_loss(batch)
        loss.backward()
        self.optimizer.step()
        return loss.item(), per_utt.detach().numpy()

    def fit(self, batches):
        for epoch in range(self.cfg.epochs):
            total = 0.0
            worst = []
            for batch in batches:
                loss, per_utt = self.train_step(batch)
                total += loss
                worst.append(np.max(per_utt))
            self.cfg.history.append(total / len(batches))
            print(f"epoch {epoch}: ctc {self.cfg.history[-1]:.4f} worst utt {max(worst):.4f}")


def make_batch(cfg, N=3, T=18):
    target_lengths = torch.randint(2, 6, (N,))
    targets = torch.randint(1, cfg.n_classes, (int(target_lengths.sum()),))
    input_lengths = torch.full((N,), T, dtype=torch.long)
    return torch.randn(T, N, cfg.n_feats), targets, input_lengths, target_lengths


def main():
    torch.manual_seed(0)
    cfg = TrainConfig()
    trainer = Trainer(cfg)
    trainer.fit([make_batch(cfg) for _ in range(4)])


if __name__ == "__main__":
    main()
