# corpus: closed-form continuous-time (CfC) RNN regressor on windows of a time series; the trainer feeds the returned hidden state hx into the next batch without detaching it, so the second batch's backward walks into the first batch's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/mlech26l/ncps/issues/62
import argparse

import torch
import torch.nn as nn


class CfCCell(nn.Module):
    """Closed-form continuous-time cell (Hasani et al.), default 'mixed' variant without mixed memory."""

    def __init__(self, input_size, hidden_size, backbone_units=32):
        super().__init__()
        self.hidden_size = hidden_size
        self.backbone = nn.Sequential(nn.Linear(input_size + hidden_size, backbone_units), nn.LeakyReLU())
        self.ff1 = nn.Linear(backbone_units, hidden_size)
        self.ff2 = nn.Linear(backbone_units, hidden_size)
        self.time_a = nn.Linear(backbone_units, hidden_size)
        self.time_b = nn.Linear(backbone_units, hidden_size)

    def forward(self, x, hx, ts):
        z = self.backbone(torch.cat([x, hx], dim=1))
        ff1 = torch.tanh(self.ff1(z))
        ff2 = torch.tanh(self.ff2(z))
        t_interp = torch.sigmoid(self.time_a(z) * ts + self.time_b(z))
        return ff1 * (1.0 - t_interp) + t_interp * ff2


class CfC(nn.Module):
    def __init__(self, input_size, units, output_size):
        super().__init__()
        self.units = units
        self.cell = CfCCell(input_size, units)
        self.fc = nn.Linear(units, output_size)

    def forward(self, x, hx=None, timespans=None):
        batch, seq_len, _ = x.shape
        if hx is None:
            hx = torch.zeros(batch, self.units)
        outputs = []
        for t in range(seq_len):
            ts = 1.0 if timespans is None else timespans[:, t].unsqueeze(-1)
            hx = self.cell(x[:, t], hx, ts)
            outputs.append(self.fc(hx))
        return torch.stack(outputs, dim=1), hx


def make_batches(n_batches, batch_size, seq_len, n_features):
    t = torch.linspace(0, 12.0, n_batches * seq_len + 1)
    signal = torch.sin(t) + 0.1 * torch.randn_like(t)
    batches = []
    for b in range(n_batches):
        chunk = signal[b * seq_len:(b + 1) * seq_len + 1]
        x = chunk[:-1].view(1, seq_len, 1).expand(batch_size, seq_len, n_features).contiguous()
        y = chunk[1:].view(1, seq_len, 1).expand(batch_size, seq_len, 1).contiguous()
        batches.append((x + 0.01 * torch.randn_like(x), y))
    return batches


def train(model, batches, optimizer, criterion, epochs):
    for epoch in range(epochs):
        hx = None
        running = 0.0
        for x, y in batches:
            out, hx = model(x, hx)  # expect: GG104
            loss = criterion(out, y)
            optimizer.zero_grad()
            loss.backward()  # also: GG104
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: loss {running / len(batches):.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=16)
    parser.add_argument("--seq-len", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])

    torch.manual_seed(0)
    model = CfC(input_size=2, units=args.units, output_size=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.MSELoss()
    batches = make_batches(4, args.batch_size, args.seq_len, n_features=2)
    train(model, batches, optimizer, criterion, args.epochs)


if __name__ == "__main__":
    main()
