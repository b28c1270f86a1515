# corpus: a two-LSTM module stores its intermediate outputs on self in forward; the loop resets only the first hidden state per window, so the second carries its graph (the outputs, rewritten before each read, carry nothing)
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn


class Stacked(nn.Module):
    def __init__(self, hidden: int = 8) -> None:
        super().__init__()
        self.hidden_size = hidden
        self.lstm_1 = nn.LSTM(1, hidden)
        self.lstm_2 = nn.LSTM(hidden, hidden)
        self.head = nn.Linear(hidden, 1)
        zeros = torch.zeros(1, 1, hidden)
        self.hidden_1 = (zeros, zeros)
        self.hidden_2 = (zeros, zeros)

    def forward(self, seq):
        self.enc_out, self.hidden_1 = self.lstm_1(seq.view(-1, 1, 1), self.hidden_1)
        self.dec_out, self.hidden_2 = self.lstm_2(self.enc_out, self.hidden_2)  # expect: GG104
        self.pred = self.head(self.dec_out.view(len(seq), -1))
        return self.pred[-1]


torch.manual_seed(0)
model = Stacked()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
series = torch.sin(torch.arange(40) * 0.1)
for epoch in range(2):
    for i in range(0, 30, 8):
        seq, target = series[i : i + 8], series[i + 8 : i + 9]
        optimizer.zero_grad()
        zeros = torch.zeros(1, 1, model.hidden_size)
        model.hidden_1 = (zeros, zeros)
        loss = (model(seq) - target).pow(2).mean()
        loss.backward()  # also: GG104
        optimizer.step()
