# corpus: flair-style character language model trainer: the corpus is one long sequence split into bptt blocks, the last hidden state of each block initialises the next one, and _repackage_hidden() detaches it at the start of every block before the forward pass (truncated BPTT); correct
# source: https://github.com/flairNLP/flair/issues/1062
import math

import torch
import torch.nn as nn

TEXT = "the quick brown fox jumps over the lazy dog. a stitch in time saves nine. " * 8


class Dictionary:
    def __init__(self, text):
        self.idx2item = sorted(set(text))
        self.item2idx = {c: i for i, c in enumerate(self.idx2item)}

    def __len__(self):
        return len(self.idx2item)


class LanguageModel(nn.Module):
    def __init__(self, dictionary, is_forward_lm=True, hidden_size=48, nlayers=1, embedding_size=16, dropout=0.1):
        super().__init__()
        self.dictionary, self.is_forward_lm = dictionary, is_forward_lm
        self.hidden_size, self.nlayers = hidden_size, nlayers
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(len(dictionary), embedding_size)
        self.rnn = nn.LSTM(embedding_size, hidden_size, nlayers)
        self.decoder = nn.Linear(hidden_size, len(dictionary))

    def forward(self, inp, hidden):
        emb = self.drop(self.encoder(inp))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output))
        return decoded.view(output.size(0), output.size(1), -1), output, hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.hidden_size),
                weight.new_zeros(self.nlayers, bsz, self.hidden_size))


class LanguageModelTrainer:
    def __init__(self, model, text, mini_batch_size=4, sequence_length=12, learning_rate=20.0, clip=0.25):
        self.model = model
        ids = torch.tensor([model.dictionary.item2idx[c] for c in text], dtype=torch.long)
        if not model.is_forward_lm:
            ids = ids.flip(0)
        self.train_data = self._batchify(ids, mini_batch_size)
        self.mini_batch_size, self.sequence_length, self.clip = mini_batch_size, sequence_length, clip
        self.optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
        self.loss_function = nn.CrossEntropyLoss()

    @staticmethod
    def _batchify(data, batch_size):
        nbatch = data.size(0) // batch_size
        return data.narrow(0, 0, nbatch * batch_size).view(batch_size, -1).t().contiguous()

    @staticmethod
    def _get_batch(source, i, sequence_length):
        seq_len = min(sequence_length, len(source) - 1 - i)
        return source[i:i + seq_len].clone().detach(), source[i + 1:i + 1 + seq_len].view(-1)

    @staticmethod
    def _repackage_hidden(h):
        return tuple(v.clone().detach() for v in h)

    def train(self, max_epochs=2):
        ntokens = len(self.model.dictionary)
        for epoch in range(1, max_epochs + 1):
            self.model.train()
            hidden = self.model.init_hidden(self.mini_batch_size)
            total_loss, batches = 0.0, 0
            for batch, i in enumerate(range(0, self.train_data.size(0) - 1, self.sequence_length)):
                data, targets = self._get_batch(self.train_data, i, self.sequence_length)
                self.model.zero_grad()
                self.optimizer.zero_grad()
                hidden = self._repackage_hidden(hidden)
                output, rnn_output, hidden = self.model.forward(data, hidden)
                loss = self.loss_function(output.view(-1, ntokens), targets)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
                self.optimizer.step()
                total_loss += loss.item()
                batches += 1
            cur_loss = total_loss / batches
            print(f"| epoch {epoch:3d} | loss {cur_loss:5.2f} | ppl {math.exp(cur_loss):8.2f}")


def main():
    torch.manual_seed(0)
    model = LanguageModel(Dictionary(TEXT))
    LanguageModelTrainer(model, TEXT).train(max_epochs=2)


if __name__ == "__main__":
    main()
