# corpus: Bidirectional LSTM row-by-row image classifier that feeds the returned (h, c) of each batch back in as the next batch's initial state, so the second backward walks into the previous batch's freed graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/yunjey/pytorch-tutorial/issues/40
import torch
import torch.nn as nn

sequence_length = 28
input_size = 28
hidden_size = 16
num_layers = 2
num_classes = 10
batch_size = 8
num_epochs = 2
learning_rate = 0.003


class BiRNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(BiRNN, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers,
                            batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hidden_size * 2, num_classes)

    def forward(self, x, h0, c0):
        out, (h_last, c_last) = self.lstm(x, (h0, c0))
        out = self.fc(out[:, -1, :])
        return out, h_last, c_last


def make_train_loader(n_batches):
    return [(torch.randn(batch_size, 1, 28, 28), torch.randint(0, num_classes, (batch_size,)))
            for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    train_loader = make_train_loader(3)
    rnn = BiRNN(input_size, hidden_size, num_layers, num_classes)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(rnn.parameters(), lr=learning_rate)

    h0 = nn.Parameter(torch.randn(num_layers * 2, batch_size, hidden_size))
    c0 = nn.Parameter(torch.randn(num_layers * 2, batch_size, hidden_size))
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = images.view(-1, sequence_length, input_size)

            optimizer.zero_grad()
            outputs, h0, c0 = rnn.forward(images, h0, c0)  # expect: GG104
            loss = criterion(outputs, labels)
            loss.backward()  # also: GG104
            optimizer.step()

            if (i + 1) % 2 == 0:
                print('Epoch [%d/%d], Step [%d/%d], Loss: %.4f'
                      % (epoch + 1, num_epochs, i + 1, len(train_loader), loss.item()))


if __name__ == '__main__':
    main()
