# corpus: seq2seq NMT Trainer with truncated BPTT over long targets (OpenNMT-py v0.1 Trainer shape): the batch is split into trunc_size target chunks and the RNN decoder state returned by each chunk is fed to the next one, but the state is never detached at the chunk boundary, so the second chunk's backward re-enters the first chunk's freed decoder graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/OpenNMT/OpenNMT-py/issues/1148
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Batch:
    src: torch.Tensor
    tgt: torch.Tensor


class Statistics:
    def __init__(self):
        self.loss, self.n_words, self.n_correct = 0.0, 0, 0

    def update(self, loss, scores, target):
        self.loss += loss
        self.n_words += target.numel()
        self.n_correct += (scores.argmax(-1) == target).sum().item()

    def ppl(self):
        return float(torch.exp(torch.tensor(self.loss / max(self.n_words, 1))))


class NMTModel(nn.Module):
    def __init__(self, vocab=30, dim=24):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, dim)
        self.tgt_emb = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.generator = nn.Linear(dim, vocab)

    def forward(self, src, tgt, dec_state=None):
        _, enc_final = self.encoder(self.src_emb(src))
        if dec_state is None:
            dec_state = enc_final
        out, dec_state = self.decoder(self.tgt_emb(tgt), dec_state)
        return self.generator(out), dec_state


class Trainer:
    def __init__(self, model, optim, trunc_size=4):
        self.model, self.optim, self.trunc_size = model, optim, trunc_size

    def _gradient_accumulation(self, batch, stats):
        target_size = batch.tgt.size(1)
        dec_state = None
        for j in range(0, target_size - 1, self.trunc_size):
            tgt_in = batch.tgt[:, j:j + self.trunc_size]
            tgt_out = batch.tgt[:, j + 1:j + 1 + self.trunc_size]
            tgt_in = tgt_in[:, :tgt_out.size(1)]
            self.model.zero_grad()
            scores, dec_state = self.model(batch.src, tgt_in, dec_state)  # expect: GG104
            loss = F.cross_entropy(scores.reshape(-1, scores.size(-1)), tgt_out.reshape(-1), reduction="sum")
            (loss / tgt_out.numel()).backward()  # also: GG104
            self.optim.step()
            stats.update(loss.item(), scores.detach(), tgt_out)

    def train(self, train_iter, epoch):
        stats = Statistics()
        for batch in train_iter:
            self._gradient_accumulation(batch, stats)
        print(f"epoch {epoch}: ppl {stats.ppl():.2f} acc {100.0 * stats.n_correct / stats.n_words:.1f}")
        return stats


def main():
    torch.manual_seed(0)
    model = NMTModel()
    trainer = Trainer(model, torch.optim.Adam(model.parameters(), lr=2e-3))
    batches = [Batch(torch.randint(0, 30, (4, 9)), torch.randint(0, 30, (4, 14))) for _ in range(3)]
    for epoch in range(2):
        trainer.train(batches, epoch)


if __name__ == "__main__":
    main()
