# corpus: one-step LSTM forecaster made "stateful" by keeping (h, c) on self.hidden across batches; the state is never detached, so batch 2's backward runs into batch 1's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://datascience.stackexchange.com/questions/54551/time-series-forecasting-with-rnns
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Config:
    input_dim: int = 1
    hidden_dim: int = 8
    num_layers: int = 1
    history: int = 6
    batch_size: int = 4
    epochs: int = 2
    lr: float = 1e-2


class LSTMModel(nn.Module):
    def __init__(self, input_dim, hidden_dim, num_layers, batch_size, output_dim=1):
        super().__init__()
        self.num_layers = num_layers
        self.hidden_dim = hidden_dim
        self.rnn = nn.LSTM(input_dim, hidden_dim, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_dim, output_dim)
        self.hidden = (torch.zeros(num_layers, batch_size, hidden_dim),
                       torch.zeros(num_layers, batch_size, hidden_dim))

    def forward(self, x):
        batch_size, seq_len, dim = x.shape
        out, self.hidden = self.rnn(x, self.hidden)  # expect: GG104
        out = self.fc(out[:, -1].view(batch_size, -1))
        return out.view(-1)


def make_windows(series, history):
    xs, ys = [], []
    for i in range(len(series) - history):
        xs.append(series[i:i + history])
        ys.append(series[i + history])
    return torch.stack(xs).unsqueeze(-1), torch.stack(ys)


class Forecaster:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = LSTMModel(cfg.input_dim, cfg.hidden_dim, cfg.num_layers, cfg.batch_size)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)
        self.criterion = nn.MSELoss()

    def train_epoch(self, x, y):
        bs = self.cfg.batch_size
        running = 0.0
        for start in range(0, len(x) - bs + 1, bs):
            xb, yb = x[start:start + bs], y[start:start + bs]
            self.optimizer.zero_grad()
            pred = self.model(xb)  # also: GG104
            loss = self.criterion(pred, yb)
            loss.backward()  # also: GG104
            self.optimizer.step()
            running += loss.item()
        return running


def main():
    torch.manual_seed(0)
    cfg = Config()
    t = torch.linspace(0, 6.0, 22)
    series = torch.sin(t) + 0.05 * torch.randn(22)
    x, y = make_windows(series, cfg.history)
    trainer = Forecaster(cfg)
    for epoch in range(cfg.epochs):
        print(f"epoch {epoch} loss {trainer.train_epoch(x, y):.4f}")


if __name__ == "__main__":
    main()
