# corpus: char-LSTM classifier keeps its hidden state on the model (self.hidden) and feeds it back each batch without detaching, so batch 2's backward runs into batch 1's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://stackoverflow.com/questions/48274929/pytorch-runtimeerror-trying-to-backward-through-the-graph-a-second-time-but
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)

VOCAB = 12
EMB = 8
HIDDEN = 16
SEQ_LEN = 7
BATCH = 4
N_CLASSES = 3

all_losses = []  # for plotting later


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, n_classes, batch_size):
        super(CharLSTM, self).__init__()
        self.hidden_dim = hidden_dim
        self.batch_size = batch_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim, batch_first=True)
        self.hidden2label = nn.Linear(hidden_dim, n_classes)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, self.batch_size, self.hidden_dim),
                torch.zeros(1, self.batch_size, self.hidden_dim))

    def forward(self, sentence):
        embeds = self.embedding(sentence)
        lstm_out, self.hidden = self.lstm(embeds, self.hidden)  # expect: GG104
        return self.hidden2label(lstm_out[:, -1, :])


def make_batches(n_batches):
    batches = []
    for _ in range(n_batches):
        x = torch.randint(0, VOCAB, (BATCH, SEQ_LEN))
        y = torch.randint(0, N_CLASSES, (BATCH,))
        batches.append((x, y))
    return batches


def train(model, batches, epochs=2, lr=0.1):
    loss_function = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=lr)
    for epoch in range(epochs):
        model.hidden = model.init_hidden()  # reset once per epoch, like the tutorial
        for i, (sentence, label) in enumerate(batches):
            model.zero_grad()
            scores = model(sentence)
            loss = loss_function(scores, label)
            loss.backward()  # also: GG104
            optimizer.step()
            all_losses.append(loss.item())
        print("epoch", epoch, "loss", np.mean(all_losses[-len(batches):]))


def main():
    model = CharLSTM(VOCAB, EMB, HIDDEN, N_CLASSES, BATCH)
    batches = make_batches(5)
    train(model, batches)


if __name__ == "__main__":
    main()
