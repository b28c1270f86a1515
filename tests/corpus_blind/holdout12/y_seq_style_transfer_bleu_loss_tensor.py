# corpus: seq2seq formality-transfer fine-tuning stage that uses a sentence-BLEU reward as the loss: cal_bl_loss() wraps the non-differentiable BLEU score in torch.tensor(...), so the loss has no grad_fn and backward() fails (the repo instead weights the sampled tokens' log-probs by the reward)
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/laihuiyuan/pre-trained-formality-transfer/issues/7
import math
import random
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS = 0, 1, 2
VOCAB_SIZE = 16


def sentence_bleu(reference, hypothesis, max_n=2):
    """Small smoothed sentence BLEU (stand-in for nltk's sentence_bleu)."""
    precisions = []
    for n in range(1, max_n + 1):
        ref_ngrams = Counter(tuple(reference[i:i + n]) for i in range(len(reference) - n + 1))
        hyp_ngrams = Counter(tuple(hypothesis[i:i + n]) for i in range(len(hypothesis) - n + 1))
        overlap = sum(min(c, ref_ngrams[g]) for g, c in hyp_ngrams.items())
        precisions.append((overlap + 1) / (max(sum(hyp_ngrams.values()), 0) + 1))
    bp = 1.0 if len(hypothesis) > len(reference) else math.exp(1 - len(reference) / max(len(hypothesis), 1))
    return bp * math.exp(sum(math.log(p) for p in precisions) / max_n)


class Seq2Seq(nn.Module):
    def __init__(self, vocab=VOCAB_SIZE, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, src, tgt_in):
        _, h = self.encoder(self.emb(src))
        dec, _ = self.decoder(self.emb(tgt_in), h)
        return self.out(dec)

    def sample(self, src, max_len=6):
        _, h = self.encoder(self.emb(src))
        tok = torch.full((src.size(0), 1), BOS, dtype=torch.long)
        idxs, logits_all = [], []
        for _ in range(max_len):
            dec, h = self.decoder(self.emb(tok), h)
            logits = self.out(dec[:, -1])
            tok = torch.multinomial(F.softmax(logits, dim=-1), 1)
            idxs.append(tok)
            logits_all.append(logits)
        return torch.cat(idxs, dim=1), torch.stack(logits_all, dim=1)


def cal_bl_reward(inp, tgt):
    """Sentence-level BLEU of each sampled output against the reference."""
    bleus = []
    for hyp, ref in zip(inp.tolist(), tgt.tolist()):
        hyp = [t for t in hyp if t not in (PAD, BOS, EOS)]
        ref = [t for t in ref if t not in (PAD, BOS, EOS)]
        bleus.append(sentence_bleu(ref, hyp))
    return bleus


def cal_bl_loss(idxs, tgt):
    bleus = cal_bl_reward(idxs, tgt)
    loss = torch.tensor(1.0 - float(np.mean(bleus)))  # expect: GG106
    return loss


class StyleTransferTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def mle_step(self, src, tgt):
        tgt_in = torch.cat([torch.full((tgt.size(0), 1), BOS), tgt[:, :-1]], dim=1)
        logits = self.model(src, tgt_in)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB_SIZE), tgt.reshape(-1), ignore_index=PAD)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def bleu_step(self, src, tgt):
        idxs, _ = self.model.sample(src)
        loss_bl = cal_bl_loss(idxs, tgt)
        self.optimizer.zero_grad()
        loss_bl.backward()  # also: GG106
        self.optimizer.step()
        return loss_bl.item()


def make_batch(bs=4, length=6):
    src = torch.randint(3, VOCAB_SIZE, (bs, length))
    tgt = torch.flip(src, dims=[1])  # "informal -> formal" toy mapping
    return src, tgt


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    trainer = StyleTransferTrainer(Seq2Seq())
    for step in range(2):
        src, tgt = make_batch()
        print("mle", step, round(trainer.mle_step(src, tgt), 4))
    for step in range(3):
        src, tgt = make_batch()
        print("bleu", step, round(trainer.bleu_step(src, tgt), 4))


if __name__ == "__main__":
    main()
