# corpus: char-RNN train() returns the loss tensor (not loss.item()) and the driver sums it into loss_avg, keeping every iteration's graph alive
# source: https://github.com/pytorch/pytorch/pull/6017
import string

import torch
import torch.nn as nn

torch.manual_seed(0)
all_characters = string.printable
n_characters = len(all_characters)
chunk_len = 8


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, n_layers=1):
        super().__init__()
        self.hidden_size = hidden_size
        self.n_layers = n_layers
        self.encoder = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, n_layers)
        self.decoder = nn.Linear(hidden_size, output_size)

    def forward(self, inp, hidden):
        out, hidden = self.gru(self.encoder(inp.view(1, -1)).view(1, 1, -1), hidden)
        return self.decoder(out.view(1, -1)), hidden

    def init_hidden(self):
        return torch.zeros(self.n_layers, 1, self.hidden_size)


decoder = CharRNN(n_characters, 16, n_characters)
decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=0.005)
criterion = nn.CrossEntropyLoss()


def random_training_set():
    chunk = torch.randint(0, n_characters, (chunk_len + 1,))
    return chunk[:-1], chunk[1:]


def train(inp, target):
    hidden = decoder.init_hidden()
    decoder.zero_grad()
    loss = 0
    for c in range(chunk_len):
        output, hidden = decoder(inp[c], hidden)
        loss += criterion(output, target[c].view(1))
    loss.backward()
    decoder_optimizer.step()
    return loss / chunk_len  # also: GG301


def main():
    loss_avg = 0
    all_losses = []
    for epoch in range(1, 7):
        loss = train(*random_training_set())
        loss_avg += loss  # expect: GG301
        if epoch % 3 == 0:
            all_losses.append(loss_avg / 3)
            loss_avg = 0
    return all_losses


if __name__ == "__main__":
    all_losses = main()
    # ground truth: the plotted running losses still hold the autograd graphs of the training iterations
    assert all(l.grad_fn is not None for l in all_losses)
    assert all(l.requires_grad for l in all_losses)
