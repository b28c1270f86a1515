# corpus: char-level RNN (RNN-walkthrough style) kept stateful across training iterations by storing self.hidden on the model; the carried state is passed in as self.hidden.detach(), so each backward stays inside the current iteration (correct truncated BPTT)
# source: https://github.com/gabrielloye/RNN-walkthrough/issues/3
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

TEXT = ["hey how are you", "good i am fine", "have a nice day"]


def build_dataset(text):
    maxlen = len(max(text, key=len))
    text = [s.ljust(maxlen) for s in text]
    chars = sorted(set("".join(text)))
    char2int = {c: i for i, c in enumerate(chars)}
    inputs = [[char2int[c] for c in s[:-1]] for s in text]
    targets = [[char2int[c] for c in s[1:]] for s in text]
    dict_size = len(char2int)
    one_hot = np.zeros((len(text), maxlen - 1, dict_size), dtype=np.float32)
    for i, seq in enumerate(inputs):
        for t, idx in enumerate(seq):
            one_hot[i, t, idx] = 1.0
    return torch.from_numpy(one_hot), torch.tensor(targets), dict_size


class Model(nn.Module):
    def __init__(self, input_size, output_size, hidden_dim, n_layers, batch_size):
        super().__init__()
        self.hidden_dim, self.n_layers = hidden_dim, n_layers
        self.rnn = nn.RNN(input_size, hidden_dim, n_layers, batch_first=True)
        self.fc = nn.Linear(hidden_dim, output_size)
        self.hidden = self.init_hidden(batch_size)

    def forward(self, x):
        out, self.hidden = self.rnn(x, self.hidden.detach())
        out = out.contiguous().view(-1, self.hidden_dim)
        return self.fc(out)

    def init_hidden(self, batch_size):
        return torch.zeros(self.n_layers, batch_size, self.hidden_dim)


def train(model, input_seq, target_seq, n_epochs=30, lr=0.01):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(1, n_epochs + 1):
        optimizer.zero_grad()
        output = model(input_seq)
        loss = criterion(output, target_seq.view(-1).long())
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            print("Epoch: {}/{}.............".format(epoch, n_epochs), "Loss: {:.4f}".format(loss.item()))
    return loss.item()


def main():
    input_seq, target_seq, dict_size = build_dataset(TEXT)
    model = Model(dict_size, dict_size, hidden_dim=12, n_layers=1, batch_size=input_seq.size(0))
    train(model, input_seq, target_seq)


if __name__ == "__main__":
    main()
