# corpus: stateful LSTM forecaster stores (h, c) on self.hidden and feeds it into the next batch without detaching, so batch 2's backward runs into batch 1's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/pytorch/issues/2769
import math
import time

import torch
import torch.nn as nn


class AverageMeter:
    def __init__(self):
        self.val, self.sum, self.count = 0.0, 0.0, 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class LSTMForecaster(nn.Module):
    def __init__(self, input_len=1, hidden_len=16, batch_size=4, horizon=1):
        super().__init__()
        self.hidden_len = hidden_len
        self.batch_size = batch_size
        self.lstm = nn.LSTM(input_len, hidden_len, batch_first=True)
        self.hidden2out = nn.Linear(hidden_len, horizon)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, self.batch_size, self.hidden_len),
                torch.zeros(1, self.batch_size, self.hidden_len))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)  # expect: GG104
        return self.hidden2out(lstm_out[:, -1, :])


def make_stateful_batches(series, batch_size=4, window=8):
    """Split the series into batch_size parallel streams; batch i+1 continues batch i."""
    stream_len = (len(series) - 1) // batch_size
    streams = series[: stream_len * batch_size + 1]
    xs = torch.stack([streams[j * stream_len: (j + 1) * stream_len] for j in range(batch_size)])
    ys = torch.stack([streams[j * stream_len + 1: (j + 1) * stream_len + 1] for j in range(batch_size)])
    batches = []
    for start in range(0, stream_len - window + 1, window):
        inp = xs[:, start:start + window].unsqueeze(-1)
        target = ys[:, start + window - 1].unsqueeze(-1)
        batches.append((inp, target))
    return batches


def train(train_data, model, criterion, optimizer, epoch):
    losses, batch_time = AverageMeter(), AverageMeter()
    model.train()
    end = time.time()
    for i, (inp, target) in enumerate(train_data):
        output = model(inp)
        loss = criterion(output, target)
        losses.update(loss.item(), inp.size(0))

        optimizer.zero_grad()
        loss.backward()  # also: GG104
        optimizer.step()

        batch_time.update(time.time() - end)
        end = time.time()
        print("Epoch: [{0}][{1}/{2}]\tTime {3:.3f} ({4:.3f})\tLoss {5:.4f} ({6:.4f})".format(
            epoch, i, len(train_data), batch_time.val, batch_time.avg, losses.val, losses.avg))


def main():
    torch.manual_seed(0)
    t = torch.arange(0, 200, dtype=torch.float32)
    series = torch.sin(t * 2 * math.pi / 25) + 0.1 * torch.randn_like(t)
    train_data = make_stateful_batches(series)
    model = LSTMForecaster()
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(2):
        model.hidden = model.init_hidden()
        train(train_data, model, criterion, optimizer, epoch)


if __name__ == "__main__":
    main()
