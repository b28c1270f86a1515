# corpus: word-level LSTM language model trained with truncated BPTT over a batchified corpus (word_language_model shape): the (h, c) state returned for one bptt chunk is fed straight into the next chunk without repackage_hidden, so the second chunk's backward walks into the first chunk's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://www.codegenes.net/blog/detach-lstm-pytorch
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = ("the cat sat on the mat and the dog sat on the log while the bird sang "
        "a song about the cat and the dog and the mat and the log ") * 6


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]


class Corpus:
    def __init__(self, text):
        self.dictionary = Dictionary()
        self.train = torch.tensor([self.dictionary.add_word(w) for w in text.split()], dtype=torch.long)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp=32, nhid=48, nlayers=2, dropout=0.1):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, inp, hidden):
        emb = self.drop(self.encoder(inp))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output))
        return decoded.view(-1, decoded.size(-1)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


class LMTrainer:
    def __init__(self, corpus, batch_size=4, bptt=6, lr=2.0, clip=0.25):
        self.ntokens = len(corpus.dictionary.idx2word)
        self.train_data = batchify(corpus.train, batch_size)
        self.model = RNNModel(self.ntokens)
        self.batch_size, self.bptt, self.lr, self.clip = batch_size, bptt, lr, clip

    def train_epoch(self, epoch):
        self.model.train()
        total_loss = 0.0
        hidden = self.model.init_hidden(self.batch_size)
        for batch, i in enumerate(range(0, self.train_data.size(0) - 1, self.bptt)):
            data, targets = get_batch(self.train_data, i, self.bptt)
            self.model.zero_grad()
            output, hidden = self.model(data, hidden)  # expect: GG104
            loss = F.cross_entropy(output, targets)
            loss.backward()  # also: GG104
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            with torch.no_grad():
                for p in self.model.parameters():
                    p.add_(p.grad, alpha=-self.lr)
            total_loss += loss.item()
        cur_loss = total_loss / (batch + 1)
        print(f"| epoch {epoch} | loss {cur_loss:5.2f} | ppl {math.exp(cur_loss):8.2f}")


def main():
    random.seed(0)
    torch.manual_seed(0)
    corpus = Corpus(TEXT)
    trainer = LMTrainer(corpus)
    for epoch in range(1, 3):
        trainer.train_epoch(epoch)


if __name__ == "__main__":
    main()
