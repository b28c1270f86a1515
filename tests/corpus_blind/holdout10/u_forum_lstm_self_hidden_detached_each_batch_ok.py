# corpus: correct look-alike - stateful LSTM forecaster keeps self.hidden on the model across batches but stores it detached after every forward, so each backward stays inside its own batch
# source: https://theneuralbase.com/pytorch/learn/intermediate/hidden-state-and-cell-state/
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

SEQ_LEN = 5
BATCH = 4
HIDDEN = 12

train_losses = []


class StatefulLSTM(nn.Module):
    def __init__(self, input_size=1, hidden_size=HIDDEN, batch_size=BATCH):
        super(StatefulLSTM, self).__init__()
        self.hidden_size = hidden_size
        self.batch_size = batch_size
        self.lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        self.linear = nn.Linear(hidden_size, 1)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, self.batch_size, self.hidden_size),
                torch.zeros(1, self.batch_size, self.hidden_size))

    def forward(self, x):
        lstm_out, hidden = self.lstm(x, self.hidden)
        self.hidden = (hidden[0].detach(), hidden[1].detach())
        return self.linear(lstm_out[:, -1, :])


def make_stream(n_batches):
    t = np.linspace(0, 20, n_batches * BATCH * (SEQ_LEN + 1))
    series = np.sin(t).astype(np.float32).reshape(n_batches, BATCH, SEQ_LEN + 1)
    batches = []
    for b in range(n_batches):
        x = torch.from_numpy(series[b, :, :SEQ_LEN]).unsqueeze(-1)
        y = torch.from_numpy(series[b, :, SEQ_LEN:])
        batches.append((x, y))
    return batches


def train(model, batches, epochs=3):
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    for epoch in range(epochs):
        model.hidden = model.init_hidden()
        epoch_loss = 0.0
        for x, y in batches:
            optimizer.zero_grad()
            pred = model(x)
            loss = criterion(pred, y)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        train_losses.append(epoch_loss / len(batches))
        print("epoch", epoch, "loss", train_losses[-1])


def main():
    model = StatefulLSTM()
    train(model, make_stream(6))


if __name__ == "__main__":
    main()
