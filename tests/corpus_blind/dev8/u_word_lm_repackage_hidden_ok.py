# corpus: word-level LSTM language model trained with truncated BPTT over a batchified corpus; the hidden (h, c) tuple is carried across chunks but repackaged (detached) at the top of every chunk, loss logged with .item() (correct)
# source: https://github.com/deeplearningathome/pytorch-language-model/pull/3
import argparse
import math

import torch
import torch.nn as nn


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, inputs, hidden):
        emb = self.drop(self.encoder(inputs))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output))
        return decoded.view(-1, decoded.size(-1)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def train_epoch(model, train_data, criterion, optimizer, args):
    model.train()
    total_loss = 0.0
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        total_loss += loss.item()
    return total_loss / (batch + 1)


def evaluate(model, data_source, criterion, args):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(args.batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i, args.bptt)
            output, hidden = model(data, hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bptt", type=int, default=8)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--clip", type=float, default=0.25)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    ntokens = 40
    corpus = torch.randint(0, ntokens, (400,))
    train_data = batchify(corpus[:320], args.batch_size)
    val_data = batchify(corpus[320:], args.batch_size)
    model = RNNModel(ntokens, 16, 32, 2)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    for epoch in range(args.epochs):
        train_loss = train_epoch(model, train_data, criterion, optimizer, args)
        val_loss = evaluate(model, val_data, criterion, args)
        print(f"epoch {epoch} train {train_loss:.3f} valid ppl {math.exp(val_loss):.2f}")


if __name__ == "__main__":
    main()
