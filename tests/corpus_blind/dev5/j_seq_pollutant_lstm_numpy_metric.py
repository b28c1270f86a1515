# corpus: air-pollutant forecaster (conv front-end + LSTM) whose train_model() accumulates the squared error with numpy on the live prediction tensor right after each optimizer step; .numpy() on a tensor that requires grad raises
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/RobinLuoNanjing/air_pollutants_prediction_lstm/issues/2
import argparse

import numpy as np
import torch
import torch.nn as nn

POLLUTANTS = ["nox", "no2", "pm25"]


class ConvLSTMForecaster(nn.Module):
    def __init__(self, n_features, hidden=32, kernel_size=3):
        super().__init__()
        self.conv = nn.Conv1d(n_features, hidden, kernel_size, padding=kernel_size // 2)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        # x: [batch, time, features]
        z = torch.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        out, _ = self.lstm(z)
        return self.head(out[:, -1]).squeeze(-1)


def make_windows(n, window, n_features):
    series = torch.cumsum(torch.randn(n + window, n_features), dim=0) * 0.1
    xs = torch.stack([series[i:i + window] for i in range(n)])
    ys = series[window:window + n, 0]
    return xs, ys


def train_model(name, model, data, epochs=2, batch_size=8, lr=1e-3):
    xs, ys = data
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.MSELoss()
    history = []
    for epoch in range(epochs):
        perm = torch.randperm(len(xs))
        sq_err, count = 0.0, 0
        for start in range(0, len(xs), batch_size):
            idx = perm[start:start + batch_size]
            y_pred = model(xs[idx])
            loss = criterion(y_pred, ys[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            sq_err += float(np.sum((y_pred.numpy() - ys[idx].numpy()) ** 2))  # expect: GG110
            count += len(idx)
        rmse = float(np.sqrt(sq_err / count))
        history.append(rmse)
        print(f"[{name}] epoch {epoch}: rmse {rmse:.4f}")
    return history


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--window", type=int, default=12)
    parser.add_argument("--n-features", type=int, default=5)
    parser.add_argument("--samples", type=int, default=32)
    args = parser.parse_args([])

    torch.manual_seed(0)
    models = {name: ConvLSTMForecaster(args.n_features) for name in POLLUTANTS}
    for name in POLLUTANTS:
        data = make_windows(args.samples, args.window, args.n_features)
        train_model(name, models[name], data)


if __name__ == "__main__":
    main()
