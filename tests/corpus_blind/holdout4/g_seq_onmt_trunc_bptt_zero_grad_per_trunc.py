# corpus: OpenNMT-style Trainer with truncated BPTT; model.zero_grad() runs before every truncation chunk but optim.step() runs once after all chunks, so each step applies only the last chunk's gradient (silent)
# source: https://github.com/OpenNMT/OpenNMT-py/issues/891
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Batch = namedtuple("Batch", ["src", "tgt", "src_lengths"])


class DecoderState:
    def __init__(self, hidden):
        self.hidden = hidden

    def detach(self):
        self.hidden = self.hidden.detach()


class Encoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim)

    def forward(self, src, lengths=None):
        memory_bank, enc_final = self.rnn(self.emb(src))
        return enc_final, memory_bank


class Decoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim)
        self.attn = nn.Linear(2 * dim, dim)

    def forward(self, tgt, memory_bank, state):
        dec_out, hidden = self.rnn(self.emb(tgt), state.hidden)
        scores = torch.einsum("tbd,sbd->tbs", dec_out, memory_bank)
        context = torch.einsum("tbs,sbd->tbd", scores.softmax(-1), memory_bank)
        outputs = torch.tanh(self.attn(torch.cat([dec_out, context], -1)))
        return outputs, {"std": scores}, DecoderState(hidden)


class NMTModel(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, tgt, lengths, dec_state=None):
        tgt = tgt[:-1]
        enc_final, memory_bank = self.encoder(src, lengths)
        if dec_state is None:
            dec_state = DecoderState(enc_final)
        outputs, attns, dec_state = self.decoder(tgt, memory_bank, dec_state)
        return outputs, attns, dec_state


class NMTLossCompute:
    def __init__(self, generator):
        self.generator = generator

    def sharded_compute_loss(self, batch, output, attns, cur_trunc, trunc_size, shard_size, normalization):
        target = batch.tgt[cur_trunc + 1: cur_trunc + 1 + output.size(0)]
        scores = self.generator(output)
        loss = F.cross_entropy(scores.view(-1, scores.size(-1)), target.reshape(-1), reduction="sum")
        loss.div(float(normalization)).backward()
        return {"loss": loss.item(), "n_words": target.numel()}


class Statistics:
    def __init__(self):
        self.loss, self.n_words = 0.0, 0

    def update(self, stats):
        self.loss += stats["loss"]
        self.n_words += stats["n_words"]


class Trainer:
    def __init__(self, model, train_loss, optim, trunc_size=0, shard_size=32, grad_accum_count=1):
        self.model = model
        self.train_loss = train_loss
        self.optim = optim
        self.trunc_size = trunc_size
        self.shard_size = shard_size
        self.grad_accum_count = grad_accum_count

    def _gradient_accumulation(self, true_batchs, normalization, total_stats, report_stats):
        if self.grad_accum_count > 1:
            self.model.zero_grad()

        for batch in true_batchs:
            target_size = batch.tgt.size(0)
            # Truncated BPTT
            if self.trunc_size:
                trunc_size = self.trunc_size
            else:
                trunc_size = target_size

            dec_state = None
            src = batch.src
            src_lengths = batch.src_lengths
            tgt_outer = batch.tgt

            for j in range(0, target_size - 1, trunc_size):
                # 1. Create truncated target.
                tgt = tgt_outer[j: j + trunc_size + 1]

                # 2. F-prop all but generator.
                if self.grad_accum_count == 1:
                    self.model.zero_grad()  # expect: GG201
                outputs, attns, dec_state = self.model(src, tgt, src_lengths, dec_state)

                # 3. Compute loss in shards for memory efficiency.
                batch_stats = self.train_loss.sharded_compute_loss(
                    batch, outputs, attns, j, trunc_size, self.shard_size, normalization)
                total_stats.update(batch_stats)
                report_stats.update(batch_stats)

                # If truncated, don't backprop fully.
                if dec_state is not None:
                    dec_state.detach()

        # 4. Update the parameters and statistics.
        self.optim.step()  # also: GG201

    def train(self, batches, normalization):
        total_stats, report_stats = Statistics(), Statistics()
        for batch in batches:
            self._gradient_accumulation([batch], normalization, total_stats, report_stats)
        return total_stats


def main():
    torch.manual_seed(0)
    vocab, dim = 30, 16
    model = NMTModel(Encoder(vocab, dim), Decoder(vocab, dim))
    generator = nn.Linear(dim, vocab)
    model.generator = generator
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = Trainer(model, NMTLossCompute(generator), optim, trunc_size=4)
    batches = [Batch(src=torch.randint(0, vocab, (7, 3)), tgt=torch.randint(0, vocab, (13, 3)),
                     src_lengths=torch.full((3,), 7)) for _ in range(3)]
    stats = trainer.train(batches, normalization=3)
    print(f"loss per word {stats.loss / stats.n_words:.3f}")


if __name__ == "__main__":
    main()
