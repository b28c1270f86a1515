# corpus: stacked two-LSTM pendulum predictor keeps self.hidden_1 and self.hidden_2; the training loop re-initialises only hidden_1 per window
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://51tsys.com/article/14967.html
import math

import torch
import torch.nn as nn


class LSTMmodel(nn.Module):
    def __init__(self, input_size, hidden_size_1, hidden_size_2, out_size):
        super().__init__()
        self.hidden_size_1 = hidden_size_1
        self.hidden_size_2 = hidden_size_2
        self.input_size = input_size
        self.lstm_1 = nn.LSTM(input_size, hidden_size_1)
        self.lstm_2 = nn.LSTM(hidden_size_1, hidden_size_2)
        self.linear = nn.Linear(hidden_size_2, out_size)
        self.hidden_1 = (torch.zeros(1, 1, hidden_size_1), torch.zeros(1, 1, hidden_size_1))
        self.hidden_2 = (torch.zeros(1, 1, hidden_size_2), torch.zeros(1, 1, hidden_size_2))

    def forward(self, seq):
        lstm_out_1, self.hidden_1 = self.lstm_1(seq.view(-1, 1, self.input_size), self.hidden_1)
        lstm_out_2, self.hidden_2 = self.lstm_2(lstm_out_1, self.hidden_2)  # expect: GG104
        pred = self.linear(lstm_out_2.view(len(seq), -1))
        return pred


def pendulum(n=40, dt=0.1):
    theta, omega, out = 0.8, 0.0, []
    for _ in range(n):
        omega -= 9.81 * math.sin(theta) * dt
        theta += omega * dt
        out.append([theta, omega])
    return torch.tensor(out)


def train(model, data, window=8, epochs=2):
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    model.train()
    for epoch in range(epochs):
        for bat in range(0, len(data) - window - 1, window):
            seq = data[bat:bat + window]
            target = data[bat + 1:bat + window + 1]
            model.hidden_1 = (torch.zeros(1, 1, model.hidden_size_1),
                              torch.zeros(1, 1, model.hidden_size_1))
            optimizer.zero_grad()
            y_pred = model(seq)
            loss = loss_fn(y_pred, target)
            loss.backward()  # also: GG104
            optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    train(LSTMmodel(2, 8, 8, 2), pendulum())
