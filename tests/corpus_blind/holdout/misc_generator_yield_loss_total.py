# corpus: forecasting experiment drives training through a generator that yields each step's loss tensor, and the epoch loop sums those tensors, keeping every step's graph alive
# source: https://github.com/thuml/AutoTimes/issues/21
import torch
import torch.nn as nn

torch.manual_seed(0)


class LinearForecaster(nn.Module):
    def __init__(self, seq_len=24, pred_len=8):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(seq_len, 32), nn.ReLU(), nn.Linear(32, pred_len))

    def forward(self, x):
        return self.proj(x)


def iterate_batches(series, seq_len, pred_len, batch_size):
    windows = series.unfold(0, seq_len + pred_len, 4)
    for i in range(0, windows.size(0), batch_size):
        chunk = windows[i:i + batch_size].contiguous()
        yield chunk[:, :seq_len], chunk[:, seq_len:]


def train_steps(model, optimizer, criterion, batches):
    for batch_x, batch_y in batches:
        optimizer.zero_grad()
        loss = criterion(model(batch_x), batch_y)
        loss.backward()
        optimizer.step()
        yield loss


class ExpLongTermForecast:
    def __init__(self, seq_len=24, pred_len=8):
        self.seq_len, self.pred_len = seq_len, pred_len
        self.model = LinearForecaster(seq_len, pred_len)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.criterion = nn.MSELoss()
        self.epoch_losses = []

    def train(self, series, epochs=2):
        for epoch in range(epochs):
            loss_val = 0.0
            count = 0
            batches = iterate_batches(series, self.seq_len, self.pred_len, batch_size=8)
            for loss in train_steps(self.model, self.optimizer, self.criterion, batches):
                loss_val += loss  # expect: GG301
                count += 1
            self.epoch_losses.append(loss_val / count)  # also: GG301
        return self.epoch_losses


def main():
    exp = ExpLongTermForecast()
    series = torch.sin(torch.linspace(0, 40, 400)) + 0.1 * torch.randn(400)
    exp.train(series)
    assert all(l.grad_fn is not None for l in exp.epoch_losses)  # ground truth: epoch totals still hold every step's graph


if __name__ == "__main__":
    main()
