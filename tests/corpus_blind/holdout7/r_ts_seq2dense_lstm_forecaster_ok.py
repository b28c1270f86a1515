# corpus: univariate forecaster whose forward stores the LSTM output and last hidden step on self before the dense decoder; each batch overwrites them and the loop logs loss.item() (correct)
# source: https://discuss.pytorch.org/t/loss-not-decreasing-in-lstm-network/159152
import torch
import torch.nn as nn
from torch.nn.init import orthogonal_, xavier_uniform_, zeros_


class Seq2DenseModel(nn.Module):
    def __init__(self, hidden=32, horizon=8):
        super().__init__()
        self._lstm_output = torch.zeros((4, 16, hidden))
        self._lstm_output_flattened = self._lstm_output[:, -1, :]
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        for name, param in self.lstm.named_parameters():
            if name.startswith("weight_ih"):
                xavier_uniform_(param)
            elif name.startswith("weight_hh"):
                orthogonal_(param)
            elif name.startswith("bias_"):
                zeros_(param)
        layers = [nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, horizon)]
        for layer in layers:
            if isinstance(layer, nn.Linear):
                xavier_uniform_(layer.weight)
                zeros_(layer.bias)
        self.decoder = nn.Sequential(*layers)

    def forward(self, x):
        self._lstm_output, _ = self.lstm(x)
        self._lstm_output_flattened = self._lstm_output[:, -1, :]
        return self.decoder(self._lstm_output_flattened)


def make_windows(series, window, horizon):
    xs, ys = [], []
    for i in range(len(series) - window - horizon):
        xs.append(series[i:i + window])
        ys.append(series[i + window:i + window + horizon])
    return torch.stack(xs).unsqueeze(-1), torch.stack(ys)


def fit(model, x, y, epochs=3, batch_size=16):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.MSELoss()
    history = []
    for epoch in range(epochs):
        epoch_loss = 0.0
        for start in range(0, x.shape[0], batch_size):
            xb, yb = x[start:start + batch_size], y[start:start + batch_size]
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        history.append(epoch_loss)
    return history


def main():
    torch.manual_seed(0)
    t = torch.arange(200, dtype=torch.float32)
    series = torch.sin(2 * torch.pi * t / 25) + 0.1 * torch.randn(200)
    x, y = make_windows(series, window=16, horizon=8)
    model = Seq2DenseModel()
    before = model.decoder[0].weight.detach().clone()
    print(fit(model, x, y))
    assert not torch.equal(before, model.decoder[0].weight)


if __name__ == "__main__":
    main()
