# corpus: multivariate LSTM time-series forecaster (min-max scaled, sliding windows); after training, the "invert predictions" step calls .numpy() on the model output, which still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/KianML/PyTorch-Multivariate-LSTM/issues/1
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


def make_series(n=120, n_features=3):
    t = np.arange(n)
    data = np.stack([np.sin(t / 6.0 + k) + 0.1 * np.random.randn(n) for k in range(n_features)], axis=1)
    return data.astype(np.float32)


def min_max_scale(data):
    mn, mx = data.min(axis=0), data.max(axis=0)
    return (data - mn) / (mx - mn), mn, mx


def sliding_windows(data, lookback, out_col):
    xs, ys = [], []
    for i in range(len(data) - lookback):
        xs.append(data[i:i + lookback])
        ys.append(data[i + lookback, out_col])
    return torch.tensor(np.array(xs)), torch.tensor(np.array(ys)).unsqueeze(1)


class LSTM(nn.Module):
    def __init__(self, input_dim, hidden_dim, num_layers, output_dim):
        super().__init__()
        self.hidden_dim, self.num_layers = hidden_dim, num_layers
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_dim, output_dim)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_dim)
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_dim)
        out, (hn, cn) = self.lstm(x, (h0, c0))
        return self.fc(out[:, -1, :])


def train(model, x_train, y_train, num_epochs=5):
    criterion = nn.MSELoss()
    optimiser = torch.optim.Adam(model.parameters(), lr=0.01)
    hist = np.zeros(num_epochs)
    for t in range(num_epochs):
        y_train_pred = model(x_train)
        loss = criterion(y_train_pred, y_train)
        hist[t] = loss.item()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return hist


def invert(pred, col_min, col_max):
    return pred * (col_max - col_min) + col_min


def main():
    raw = make_series()
    scaled, mn, mx = min_max_scale(raw)
    out_col = 0
    x, y = sliding_windows(scaled, lookback=10, out_col=out_col)
    split = int(0.8 * len(x))
    x_train, y_train, x_test, y_test = x[:split], y[:split], x[split:], y[split:]

    model = LSTM(input_dim=3, hidden_dim=16, num_layers=2, output_dim=1)
    hist = train(model, x_train, y_train)
    print("final train mse", hist[-1])

    out_min = torch.Tensor([[mn[out_col]]])
    out_max = torch.Tensor([[mx[out_col]]])
    y_train_pred = model(x_train)
    y_test_pred = model(x_test)
    y_train_pred = invert(y_train_pred, out_min, out_max).numpy()  # expect: GG110
    y_test_pred = invert(y_test_pred, out_min, out_max).numpy()  # also: GG110
    y_test_inv = invert(y_test, out_min, out_max).numpy()
    rmse = float(np.sqrt(((y_test_pred - y_test_inv) ** 2).mean()))
    print("test rmse", rmse, y_train_pred.shape)


if __name__ == "__main__":
    main()
