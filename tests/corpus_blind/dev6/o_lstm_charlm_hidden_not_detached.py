# corpus: character-level LSTM language model (Shakespeare-style, batched text stream) initialises the hidden state once before the iteration loop and feeds each batch's final (h, c) into the next batch without detaching it, so the second batch's backward reaches the first batch's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://learn.biosrag.com/ai/rnn-training-4.html
import argparse
import math

import torch
import torch.nn as nn

TEXT = (
    "That, poor contempt, or claim'd thou slept so faithful, "
    "I may contrive our father; and, in their defeated queen, "
    "her flesh broke me and puttance of expedition house, "
    "and in that same that ever I lament this stomach, "
)


class CharVocab:
    def __init__(self, text):
        self.chars = sorted(set(text))
        self.word2index = {c: i for i, c in enumerate(self.chars)}

    def encode(self, text):
        return torch.tensor([self.word2index[c] for c in text], dtype=torch.long)

    def __len__(self):
        return len(self.chars)


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, num_layers=1):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, num_layers)
        self.decoder = nn.Linear(hidden_dim, vocab_size)

    def init_hidden(self, batch_size):
        weight = next(self.parameters())
        return (weight.new_zeros(self.num_layers, batch_size, self.hidden_dim),
                weight.new_zeros(self.num_layers, batch_size, self.hidden_dim))

    def forward(self, input, hidden):
        emb = self.embed(input)
        output, hidden = self.lstm(emb, hidden)
        return self.decoder(output), hidden


def batchify(indices, batch_size, bptt):
    n_batches = indices.size(0) // batch_size
    data = indices[: n_batches * batch_size].view(batch_size, n_batches).t().contiguous()
    input_batches, target_batches = [], []
    for i in range(0, data.size(0) - 1, bptt):
        seq_len = min(bptt, data.size(0) - 1 - i)
        input_batches.append(data[i: i + seq_len])
        target_batches.append(data[i + 1: i + 1 + seq_len])
    return input_batches, target_batches


def train(model, input_batches, target_batches, criterion, optimizer, iterations, vocab_size):
    hidden = model.init_hidden(input_batches[0].size(1))
    for it in range(iterations):
        total_loss = 0.0
        n_loss = 0
        for batch_i in range(len(input_batches)):
            output, hidden = model(input_batches[batch_i], hidden)  # expect: GG104
            loss = criterion(output.view(-1, vocab_size), target_batches[batch_i].view(-1))

            optimizer.zero_grad()
            loss.backward()  # also: GG104
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optimizer.step()

            total_loss += loss.item()
            n_loss += 1
        print("Iter: %d - Loss: %.4f - Perplexity: %.2f"
              % (it, total_loss / n_loss, math.exp(total_loss / n_loss)))


def main():
    parser = argparse.ArgumentParser(description="char-level LSTM language model")
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--bptt", type=int, default=16)
    parser.add_argument("--embed_dim", type=int, default=16)
    parser.add_argument("--hidden_dim", type=int, default=32)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()

    torch.manual_seed(0)
    vocab = CharVocab(TEXT)
    indices = vocab.encode(TEXT)
    input_batches, target_batches = batchify(indices, args.batch_size, args.bptt)

    model = CharLSTM(len(vocab), args.embed_dim, args.hidden_dim)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    train(model, input_batches, target_batches, criterion, optimizer, args.iterations, len(vocab))


if __name__ == "__main__":
    main()
