# corpus: Stateful LSTM time-series forecaster trained with truncated BPTT (shape of the codegenes "detaching hidden states" guide): a Trainer walks a long series in windows, the (h, c) state returned by each window is re-bound to its detached copies before the next window, the per-window loss is logged with .item() into a meter dict, and zero_grad/backward/step run once per window; correct
# source: https://www.codegenes.net/blog/detach-hidden-states-pytorch
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import torch
import torch.nn as nn

State = Tuple[torch.Tensor, torch.Tensor]


class Forecaster(nn.Module):
    def __init__(self, n_features=2, hidden=24, layers=1):
        super().__init__()
        self.layers, self.hidden = layers, hidden
        self.lstm = nn.LSTM(n_features, hidden, layers, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x, state: State):
        out, state = self.lstm(x, state)
        return self.head(out).squeeze(-1), state

    def init_state(self, batch) -> State:
        return (torch.zeros(self.layers, batch, self.hidden), torch.zeros(self.layers, batch, self.hidden))


def detach_state(state: State) -> State:
    return tuple(s.detach() for s in state)


@dataclass
class Meter:
    values: Dict[str, List[float]] = field(default_factory=lambda: {"train": [], "epoch": []})

    def update(self, key, v):
        self.values[key].append(v)

    def mean(self, key):
        return sum(self.values[key]) / len(self.values[key])


class Trainer:
    def __init__(self, model, window=10, lr=3e-3):
        self.model, self.window = model, window
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.MSELoss()
        self.meter = Meter()

    def windows(self, series, target):
        for start in range(0, series.size(1) - self.window + 1, self.window):
            yield series[:, start:start + self.window], target[:, start:start + self.window]

    def train_epoch(self, series, target):
        state = self.model.init_state(series.size(0))
        for x, y in self.windows(series, target):
            state = detach_state(state)
            pred, state = self.model(x, state)
            loss = self.criterion(pred, y)
            self.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.meter.update("train", loss.item())
        self.meter.update("epoch", self.meter.mean("train"))
        return self.meter.values["epoch"][-1]


def make_series(batch=4, length=60):
    t = torch.linspace(0, 12, length)
    phase = torch.rand(batch, 1) * 6.28
    signal = torch.sin(t + phase) + 0.1 * torch.randn(batch, length)
    series = torch.stack([signal, torch.cos(t + phase)], dim=-1)
    target = torch.roll(signal, -1, dims=1)
    return series, target


def main():
    torch.manual_seed(0)
    trainer = Trainer(Forecaster())
    series, target = make_series()
    for epoch in range(3):
        print(f"epoch {epoch} mse {trainer.train_epoch(series, target):.4f}")


if __name__ == "__main__":
    main()
