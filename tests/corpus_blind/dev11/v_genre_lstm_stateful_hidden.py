# corpus: music-genre LSTM classifier made "stateful between batches": self.hidden is reset once per epoch and fed back each batch without detach, so batch 2's backward reaches batch 1's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/ruohoruotsi/LSTM-Music-Genre-Classification/issues/12
import torch
import torch.nn as nn
import torch.optim as optim


class LSTM(nn.Module):
    def __init__(self, input_dim, hidden_dim, batch_size, output_dim=4, num_layers=1):
        super(LSTM, self).__init__()
        self.input_dim = input_dim
        self.hidden_dim = hidden_dim
        self.batch_size = batch_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(self.input_dim, self.hidden_dim, self.num_layers)
        self.linear = nn.Linear(self.hidden_dim, output_dim)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (
            torch.zeros(self.num_layers, self.batch_size, self.hidden_dim),
            torch.zeros(self.num_layers, self.batch_size, self.hidden_dim),
        )

    def forward(self, input):
        # keep the LSTM stateful between batches (the PR's proposal)
        lstm_out, self.hidden = self.lstm(input, self.hidden)  # expect: GG104
        logits = self.linear(lstm_out[-1])
        genre_scores = torch.log_softmax(logits, dim=1)
        return genre_scores


class GenreFeatureData:
    """Stand-in for the MFCC/spectral-contrast features of GTZAN clips."""

    def __init__(self, n_clips=12, seq_len=6, n_features=5, n_genres=4):
        self.train_X = torch.randn(n_clips, seq_len, n_features)
        self.train_Y = torch.randint(0, n_genres, (n_clips,))

    def minibatch(self, i, batch_size):
        X = self.train_X[i * batch_size:(i + 1) * batch_size]
        y = self.train_Y[i * batch_size:(i + 1) * batch_size]
        return X.permute(1, 0, 2), y  # (seq_len, batch, features)


def get_accuracy(logits, target):
    corrects = (torch.max(logits, 1)[1].view(target.size()) == target).sum()
    return 100.0 * corrects.item() / target.size(0)


def train(model, data, num_epochs=2, batch_size=3):
    loss_function = nn.NLLLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.001)
    num_batches = data.train_X.size(0) // batch_size
    for epoch in range(num_epochs):
        train_running_loss, train_acc = 0.0, 0.0
        model.hidden = model.init_hidden()
        for i in range(num_batches):
            model.zero_grad()
            X_local_minibatch, y_local_minibatch = data.minibatch(i, batch_size)
            y_pred = model(X_local_minibatch)
            loss = loss_function(y_pred, y_local_minibatch)
            loss.backward()  # also: GG104
            optimizer.step()
            train_running_loss += loss.item()
            train_acc += get_accuracy(y_pred, y_local_minibatch)
        print(f"Epoch {epoch} | loss {train_running_loss / num_batches:.4f} | acc {train_acc / num_batches:.1f}")


def main():
    torch.manual_seed(0)
    data = GenreFeatureData()
    model = LSTM(input_dim=5, hidden_dim=8, batch_size=3, output_dim=4)
    train(model, data)


if __name__ == "__main__":
    main()
