# corpus: OpenNMT-style transformer NMT with an extra sentence-classification head on the encoder; LossCompute backpropagates the class loss itself, then the trainer backpropagates the NMT loss through the same encoder
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/OpenNMT/OpenNMT-py/issues/2153
import argparse
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 0


@dataclass
class Batch:
    src: torch.Tensor
    tgt: torch.Tensor
    stargets: torch.Tensor


class Statistics:
    def __init__(self, loss=0.0, n_words=0, n_correct=0):
        self.loss = loss
        self.n_words = n_words
        self.n_correct = n_correct

    def update(self, stat):
        self.loss += stat.loss
        self.n_words += stat.n_words
        self.n_correct += stat.n_correct

    def accuracy(self):
        return 100.0 * self.n_correct / max(self.n_words, 1)


class TransformerEncoder(nn.Module):
    def __init__(self, vocab, d_model, heads, layers):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, d_model, padding_idx=PAD)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=2 * d_model, dropout=0.0, batch_first=True)
        self.transformer = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, src):
        emb = self.embeddings(src)
        memory_bank = self.transformer(emb, src_key_padding_mask=src.eq(PAD))
        return emb, memory_bank


class TransformerDecoder(nn.Module):
    def __init__(self, vocab, d_model, heads, layers):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, d_model, padding_idx=PAD)
        layer = nn.TransformerDecoderLayer(d_model, heads, dim_feedforward=2 * d_model, dropout=0.0, batch_first=True)
        self.transformer = nn.TransformerDecoder(layer, layers)

    def forward(self, tgt, memory_bank, src):
        t = tgt.size(1)
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        dec_out = self.transformer(self.embeddings(tgt), memory_bank, tgt_mask=causal, memory_key_padding_mask=src.eq(PAD))
        return dec_out, {"std": None}


class NMTModel(nn.Module):
    def __init__(self, encoder, decoder, n_sent_classes, d_model):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        # joint-learning head placed after the encoder
        self.sent_classifier = nn.Sequential(nn.Linear(d_model, d_model), nn.Tanh(), nn.Linear(d_model, n_sent_classes))

    def forward(self, src, tgt):
        dec_in = tgt[:, :-1]
        enc_state, memory_bank = self.encoder(src)
        dec_out, attns = self.decoder(dec_in, memory_bank, src)
        mask = src.ne(PAD).unsqueeze(-1).float()
        pooled = (memory_bank * mask).sum(1) / mask.sum(1)
        stargets_logits = self.sent_classifier(pooled)
        return dec_out, attns, stargets_logits


class NMTLossCompute(nn.Module):
    def __init__(self, generator, normalization="tokens"):
        super().__init__()
        self.generator = generator
        self.criterion = nn.NLLLoss(ignore_index=PAD, reduction="sum")
        self.class_criterion = nn.CrossEntropyLoss()
        self.normalization = normalization

    def _compute_class_loss(self, stargets_logits, stargets_refs):
        class_loss = self.class_criterion(stargets_logits, stargets_refs)
        pred = stargets_logits.argmax(-1)
        stats = Statistics(class_loss.item(), stargets_refs.numel(), pred.eq(stargets_refs).sum().item())
        return class_loss, stats

    def _compute_loss(self, output, target):
        scores = self.generator(output.reshape(-1, output.size(-1)))
        gtruth = target.reshape(-1)
        loss = self.criterion(scores, gtruth)
        non_pad = gtruth.ne(PAD)
        correct = scores.argmax(-1).eq(gtruth).masked_select(non_pad).sum().item()
        return loss, Statistics(loss.item(), non_pad.sum().item(), correct)

    def __call__(self, batch, output, stargets_logits, normalization):
        batch_stats = Statistics()
        class_loss, class_stats = self._compute_class_loss(stargets_logits, batch.stargets)
        class_loss.backward()
        batch_stats.update(class_stats)
        loss, stats = self._compute_loss(output, batch.tgt[:, 1:])
        batch_stats.update(stats)
        return loss.div(float(normalization)), batch_stats


class Optimizer:
    def __init__(self, params, lr):
        self.optimizer = torch.optim.Adam(params, lr=lr, betas=(0.9, 0.998))
        self.training_step = 1

    def zero_grad(self):
        self.optimizer.zero_grad()

    def backward(self, loss):
        loss.backward()  # expect: GG102

    def step(self):
        self.optimizer.step()
        self.training_step += 1


class Trainer:
    def __init__(self, model, train_loss, optim, accum_count=1):
        self.model = model
        self.train_loss = train_loss
        self.optim = optim
        self.accum_count = accum_count

    def _gradient_accumulation(self, true_batches, total_stats):
        self.optim.zero_grad()
        for batch in true_batches:
            normalization = batch.tgt[:, 1:].ne(PAD).sum().item()
            outputs, attns, stargets_logits = self.model(batch.src, batch.tgt)
            loss, batch_stats = self.train_loss(batch, outputs, stargets_logits, normalization)
            self.optim.backward(loss)
            total_stats.update(batch_stats)
        self.optim.step()

    def train(self, train_iter, train_steps):
        total_stats = Statistics()
        step = 0
        true_batches = []
        for batch in train_iter:
            true_batches.append(batch)
            if len(true_batches) == self.accum_count:
                self._gradient_accumulation(true_batches, total_stats)
                true_batches = []
                step += 1
                print("step %d acc %.2f" % (step, total_stats.accuracy()))
                if step >= train_steps:
                    break
        return total_stats


def build_batches(n, vocab, n_classes, bs=4, src_len=7, tgt_len=6):
    batches = []
    for _ in range(n):
        src = torch.randint(1, vocab, (bs, src_len))
        src[:, -2:] = PAD
        tgt = torch.randint(1, vocab, (bs, tgt_len))
        stargets = torch.randint(0, n_classes, (bs,))
        batches.append(Batch(src, tgt, stargets))
    return batches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", type=int, default=30)
    parser.add_argument("--d_model", type=int, default=16)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--n_sent_classes", type=int, default=3)
    parser.add_argument("--train_steps", type=int, default=3)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    encoder = TransformerEncoder(opt.vocab, opt.d_model, opt.heads, opt.layers)
    decoder = TransformerDecoder(opt.vocab, opt.d_model, opt.heads, opt.layers)
    model = NMTModel(encoder, decoder, opt.n_sent_classes, opt.d_model)
    generator = nn.Sequential(nn.Linear(opt.d_model, opt.vocab), nn.LogSoftmax(dim=-1))
    train_loss = NMTLossCompute(generator)
    optim = Optimizer(list(model.parameters()) + list(generator.parameters()), lr=1e-3)
    trainer = Trainer(model, train_loss, optim)
    trainer.train(build_batches(4, opt.vocab, opt.n_sent_classes), opt.train_steps)


if __name__ == "__main__":
    main()
