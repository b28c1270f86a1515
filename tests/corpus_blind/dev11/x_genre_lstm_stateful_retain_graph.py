# corpus: LSTM music-genre classifier made stateful between batches via self.hidden; retain_graph=True silences the first error, but the kept graph still points at weights the optimizer stepped, so the next backward fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/ruohoruotsi/LSTM-Music-Genre-Classification/issues/12
import torch
import torch.nn as nn
import torch.optim as optim

GENRES = ["classical", "hiphop", "jazz", "metal"]


class LSTM(nn.Module):
    def __init__(self, input_dim, hidden_dim, batch_size, output_dim=len(GENRES), num_layers=1):
        super().__init__()
        self.input_dim, self.hidden_dim = input_dim, hidden_dim
        self.batch_size, self.num_layers = batch_size, num_layers
        self.lstm = nn.LSTM(self.input_dim, self.hidden_dim, self.num_layers)
        self.linear = nn.Linear(self.hidden_dim, output_dim)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(self.num_layers, self.batch_size, self.hidden_dim),
                torch.zeros(self.num_layers, self.batch_size, self.hidden_dim))

    def forward(self, input):
        # keep the LSTM stateful between batches: feed the last state back in
        lstm_out, self.hidden = self.lstm(input, self.hidden)  # also: GG104
        logits = self.linear(lstm_out[-1])
        return nn.functional.log_softmax(logits, dim=1)

    def get_accuracy(self, logits, target):
        corrects = (torch.max(logits, 1)[1].view(target.size()).data == target.data).sum()
        return 100.0 * corrects / self.batch_size


def make_batches(n_batches, seq_len, batch_size, n_mfcc):
    batches = []
    for _ in range(n_batches):
        x = torch.randn(seq_len, batch_size, n_mfcc)
        y = torch.randint(0, len(GENRES), (batch_size,))
        batches.append((x, y))
    return batches


def train(model, batches, num_epochs=2):
    loss_function = nn.NLLLoss()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(num_epochs):
        train_running_loss, train_acc = 0.0, 0.0
        for i, (X_local_minibatch, y_local_minibatch) in enumerate(batches):
            model.zero_grad()
            y_pred = model(X_local_minibatch)
            loss = loss_function(y_pred, y_local_minibatch)
            loss.backward(retain_graph=True)  # expect: GG302
            optimizer.step()
            train_running_loss += loss.detach().item()
            train_acc += model.get_accuracy(y_pred, y_local_minibatch).item()
        print(f"epoch {epoch} loss {train_running_loss / len(batches):.4f} acc {train_acc / len(batches):.1f}")


def main():
    torch.manual_seed(0)
    batch_size, n_mfcc = 3, 6
    model = LSTM(input_dim=n_mfcc, hidden_dim=8, batch_size=batch_size)
    batches = make_batches(n_batches=3, seq_len=5, batch_size=batch_size, n_mfcc=n_mfcc)
    train(model, batches)


if __name__ == "__main__":
    main()
