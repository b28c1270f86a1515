# corpus: LSTM + linear head learning to shift a toy time series: the training loop calls loss.backward() and optimizer.step() but never clears the gradients
# source: https://stats.stackexchange.com/questions/376851/why-is-lstm-so-ineffective-at-this-ridiculously-simple-sequence
import numpy as np
import torch


class Forecaster:
    def __init__(self, hidden_size=100, lr=1e-3):
        self.hidden_size = hidden_size
        self.lstm = torch.nn.LSTM(input_size=1, hidden_size=hidden_size, num_layers=1, batch_first=True).to(torch.double)
        self.linear = torch.nn.Linear(hidden_size, 1).to(torch.double)
        self.criterion = torch.nn.MSELoss()
        self.params = list(self.lstm.parameters()) + list(self.linear.parameters())
        self.optimizer = torch.optim.Adam(self.params, lr=lr)

    def init_hidden(self):
        return (torch.zeros((1, 1, self.hidden_size), dtype=torch.double),
                torch.zeros((1, 1, self.hidden_size), dtype=torch.double))

    def sequence_loss(self, x, y, L):
        output, hidden = self.lstm(x, self.init_hidden())
        loss = 0.0
        for i in range(L):
            o = self.linear(output[:, i, :].squeeze())
            loss += self.criterion(o, y.squeeze()[i].unsqueeze(0))
        return loss

    def fit(self, x, y, L, iterations):
        for j in range(iterations):
            loss = self.sequence_loss(x, y, L)
            loss.backward()  # expect: GG201
            self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    L = 21
    x = torch.tensor(np.arange(L) / 20, dtype=torch.double).unsqueeze(0).unsqueeze(2)
    y = torch.tensor(np.arange(2, L + 2) / 20, dtype=torch.double)
    model = Forecaster(hidden_size=16)
    print("final loss", model.fit(x, y, L, iterations=5))


if __name__ == "__main__":
    main()
