# corpus: Sentiment LSTM classifier passes the hidden state from one mini-batch to the next, but re-wraps it with .data at the top of every batch, so each backward only walks the current batch's graph.
# source: https://github.com/udacity/deep-learning-v2-pytorch/issues/244
import numpy as np
import torch
import torch.nn as nn


class SentimentRNN(nn.Module):
    def __init__(self, vocab_size, output_size, embedding_dim, hidden_dim, n_layers, drop_prob=0.5):
        super(SentimentRNN, self).__init__()
        self.output_size = output_size
        self.n_layers = n_layers
        self.hidden_dim = hidden_dim
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim, n_layers, dropout=drop_prob, batch_first=True)
        self.dropout = nn.Dropout(0.3)
        self.fc = nn.Linear(hidden_dim, output_size)
        self.sig = nn.Sigmoid()

    def forward(self, x, hidden):
        batch_size = x.size(0)
        embeds = self.embedding(x)
        lstm_out, hidden = self.lstm(embeds, hidden)
        lstm_out = lstm_out.contiguous().view(-1, self.hidden_dim)
        out = self.dropout(lstm_out)
        out = self.fc(out)
        sig_out = self.sig(out)
        sig_out = sig_out.view(batch_size, -1)
        sig_out = sig_out[:, -1]
        return sig_out, hidden

    def init_hidden(self, batch_size):
        weight = next(self.parameters()).data
        hidden = (weight.new(self.n_layers, batch_size, self.hidden_dim).zero_(),
                  weight.new(self.n_layers, batch_size, self.hidden_dim).zero_())
        return hidden


def make_loader(rng, n_batches, batch_size, seq_length, vocab_size):
    loader = []
    for _ in range(n_batches):
        features = torch.from_numpy(rng.integers(1, vocab_size, size=(batch_size, seq_length)))
        labels = torch.from_numpy(rng.integers(0, 2, size=(batch_size,)))
        loader.append((features, labels))
    return loader


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    vocab_size, batch_size, seq_length = 60, 5, 12
    train_loader = make_loader(rng, 4, batch_size, seq_length, vocab_size)
    valid_loader = make_loader(rng, 2, batch_size, seq_length, vocab_size)

    net = SentimentRNN(vocab_size, output_size=1, embedding_dim=16, hidden_dim=12, n_layers=2)
    lr = 0.001
    criterion = nn.BCELoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)

    epochs = 2
    counter = 0
    print_every = 2
    clip = 5

    net.train()
    for e in range(epochs):
        h = net.init_hidden(batch_size)
        for inputs, labels in train_loader:
            counter += 1
            h = tuple([each.data for each in h])
            net.zero_grad()
            output, h = net(inputs, h)
            loss = criterion(output.squeeze(), labels.float())
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), clip)
            optimizer.step()

            if counter % print_every == 0:
                val_h = net.init_hidden(batch_size)
                val_losses = []
                net.eval()
                for inputs, labels in valid_loader:
                    val_h = tuple([each.data for each in val_h])
                    output, val_h = net(inputs, val_h)
                    val_loss = criterion(output.squeeze(), labels.float())
                    val_losses.append(val_loss.item())
                net.train()
                print("Epoch: {}/{}...".format(e + 1, epochs),
                      "Step: {}...".format(counter),
                      "Loss: {:.6f}...".format(loss.item()),
                      "Val Loss: {:.6f}".format(np.mean(val_losses)))


if __name__ == '__main__':
    main()
