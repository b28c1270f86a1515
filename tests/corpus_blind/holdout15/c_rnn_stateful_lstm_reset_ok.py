# corpus: Sentiment RNN built from a StatefulLSTM cell that keeps self.h/self.c between time steps; RNN_model.forward calls reset_state() first, so every batch starts from a fresh state and a fresh graph.
# source: https://github.com/BoChenUIUC/CS547-DL/blob/master/hw5/2a/RNN_model.py
import torch
import torch.nn as nn
import torch.optim as optim


class StatefulLSTM(nn.Module):
    def __init__(self, in_size, out_size):
        super(StatefulLSTM, self).__init__()
        self.lstm = nn.LSTMCell(in_size, out_size)
        self.out_size = out_size
        self.h = None
        self.c = None

    def reset_state(self):
        self.h = None
        self.c = None

    def forward(self, x):
        batch_size = x.data.size()[0]
        if self.h is None:
            state_size = [batch_size, self.out_size]
            self.c = torch.zeros(state_size)
            self.h = torch.zeros(state_size)
        self.h, self.c = self.lstm(x, (self.h, self.c))
        return self.h


class RNN_model(nn.Module):
    def __init__(self, vocab_size, no_of_hidden_units):
        super(RNN_model, self).__init__()
        self.embedding = nn.Embedding(vocab_size, no_of_hidden_units)
        self.lstm1 = StatefulLSTM(no_of_hidden_units, no_of_hidden_units)
        self.bn_lstm1 = nn.BatchNorm1d(no_of_hidden_units)
        self.fc_output = nn.Linear(no_of_hidden_units, 1)
        self.loss = nn.BCEWithLogitsLoss()

    def reset_state(self):
        self.lstm1.reset_state()

    def forward(self, x, t, train=True):
        embed = self.embedding(x)
        no_of_timesteps = embed.shape[1]
        self.reset_state()
        outputs = []
        for i in range(no_of_timesteps):
            h = self.lstm1(embed[:, i, :])
            h = self.bn_lstm1(h)
            outputs.append(h)
        outputs = torch.stack(outputs).permute(1, 2, 0)
        pool = nn.MaxPool1d(no_of_timesteps)
        h = pool(outputs).view(x.size(0), -1)
        h = self.fc_output(h)
        return self.loss(h[:, 0], t), h[:, 0]


def main():
    torch.manual_seed(0)
    vocab_size, seq_len, batch_size = 20, 5, 4
    model = RNN_model(vocab_size, 8)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    for it in range(3):
        data = torch.randint(0, vocab_size, (batch_size, seq_len))
        target = torch.randint(0, 2, (batch_size,)).float()
        optimizer.zero_grad()
        loss, pred = model(data, target, train=True)
        loss.backward()
        optimizer.step()
    ok = all(p.grad is not None for p in model.parameters())
    assert ok
    print("final loss", round(loss.item(), 4), "grads reached params:", ok)


if __name__ == "__main__":
    main()
