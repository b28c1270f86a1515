# corpus: Character-level LSTM language model trainer with a detach_hidden() helper (shape of the codegenes "detach_hidden" post) that calls h.detach() on each state tensor as a bare statement and returns the untouched tuple, so the next batch still backpropagates into the previous batch's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://www.codegenes.net/blog/detach_hidden-pytorch
import torch
import torch.nn as nn


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_size, num_layers):
        super().__init__()
        self.num_layers, self.hidden_size = num_layers, hidden_size
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers)
        self.fc = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, hidden):
        out, hidden = self.lstm(self.embed(x), hidden)
        return self.fc(out), hidden

    def init_hidden(self, batch_size):
        return (torch.zeros(self.num_layers, batch_size, self.hidden_size),
                torch.zeros(self.num_layers, batch_size, self.hidden_size))


def detach_hidden(hidden):
    for h in hidden:
        h.detach()  # expect: GG112
    return hidden


def batchify(data, batch_size):
    n = data.size(0) // batch_size
    return data[:n * batch_size].view(batch_size, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


def train_epoch(model, data, criterion, optimizer, batch_size, bptt, clip=0.25):
    model.train()
    hidden = model.init_hidden(batch_size)
    total_loss, n_batches = 0.0, 0
    for i in range(0, data.size(0) - 1, bptt):
        inputs, targets = get_batch(data, i, bptt)
        hidden = detach_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(inputs, hidden)
        loss = criterion(output.view(-1, output.size(-1)), targets.reshape(-1))
        loss.backward()  # also: GG112
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total_loss += loss.item()
        n_batches += 1
    return total_loss / n_batches


def main():
    torch.manual_seed(0)
    vocab_size, batch_size, bptt = 30, 4, 8
    corpus = torch.randint(0, vocab_size, (200,))
    train_data = batchify(corpus, batch_size)
    model = CharLSTM(vocab_size, 16, 32, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(2):
        print(f"epoch {epoch} loss {train_epoch(model, train_data, criterion, optimizer, batch_size, bptt):.4f}")


if __name__ == "__main__":
    main()
