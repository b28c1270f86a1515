# corpus: RNN language model on a batchified corpus carries (h, c) across seq_length windows through a detach(states) helper (correct)
# source: https://github.com/yunjey/pytorch-tutorial/issues/90
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_

embed_size = 8
hidden_size = 16
num_layers = 1
num_epochs = 2
batch_size = 4
seq_length = 5
learning_rate = 0.002
vocab_size = 30


class RNNLM(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        x = self.embed(x)
        out, (h, c) = self.lstm(x, h)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        return self.linear(out), (h, c)


def detach(states):
    return [state.detach() for state in states]


def main():
    torch.manual_seed(0)
    ids = torch.randint(0, vocab_size, (batch_size, 26))
    model = RNNLM(vocab_size, embed_size, hidden_size, num_layers)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    carried = []
    for epoch in range(num_epochs):
        states = (torch.zeros(num_layers, batch_size, hidden_size),
                  torch.zeros(num_layers, batch_size, hidden_size))
        for i in range(0, ids.size(1) - seq_length, seq_length):
            inputs = ids[:, i:i + seq_length]
            targets = ids[:, (i + 1):(i + 1) + seq_length]
            states = detach(states)
            carried.append(states)
            outputs, states = model(inputs, states)
            loss = criterion(outputs, targets.reshape(-1))
            model.zero_grad()
            loss.backward()
            clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
    return model, carried


if __name__ == "__main__":
    model, carried = main()
    assert all(p.grad is not None for p in model.parameters())
    assert all(s.grad_fn is None for pair in carried for s in pair)
