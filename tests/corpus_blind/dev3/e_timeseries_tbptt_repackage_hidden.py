# corpus: truncated-BPTT forecaster treats a long series as one stream: hidden is initialised once per epoch and passed to the next batch only after repackage_hidden() detaches it
# source: https://github.com/yikangshen/Ordered-Neurons/issues/13
import math

import torch
import torch.nn as nn


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(series, bsz):
    nbatch = series.size(0) // bsz
    return series[: nbatch * bsz].view(bsz, -1).t().contiguous().unsqueeze(-1)  # (time, bsz, 1)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


class RNNForecaster(nn.Module):
    def __init__(self, ninp=1, nhid=16, nlayers=2, dropout=0.1):
        super().__init__()
        self.nhid, self.nlayers = nhid, nlayers
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ninp)

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))

    def forward(self, input, hidden):
        output, hidden = self.rnn(input, hidden)
        return self.decoder(output), hidden


def train_epoch(model, train_data, optimizer, criterion, bptt=10, batch_size=4, clip=0.25):
    model.train()
    total_loss = 0.0
    hidden = model.init_hidden(batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i, bptt)
        # Starting each batch, we detach the hidden state from how it was previously produced.
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total_loss += loss.item()
    return total_loss / (batch + 1)


def evaluate(model, data_source, criterion, bptt=10, batch_size=4):
    model.eval()
    total = 0.0
    hidden = model.init_hidden(batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = model(data, hidden)
            total += len(data) * criterion(output, targets).item()
    return total / (len(data_source) - 1)


if __name__ == "__main__":
    torch.manual_seed(0)
    t = torch.arange(0, 160, dtype=torch.float32)
    series = torch.sin(2 * math.pi * t / 30) + 0.05 * torch.randn_like(t)
    train_data, val_data = batchify(series[:128], 4), batchify(series[128:], 4)
    model = RNNForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.MSELoss()
    for epoch in range(1, 3):
        train_loss = train_epoch(model, train_data, optimizer, criterion)
        val_loss = evaluate(model, val_data, criterion)
        print(f"| epoch {epoch:3d} | train loss {train_loss:.4f} | valid loss {val_loss:.4f}")
