# corpus: char-RNN trained with truncated BPTT (jvns.ca "Day 13: BPTT" shape): the hidden state keeps flowing from character to character and is cut with hidden = hidden.detach() (assigned, not a bare call) right after each periodic optimizer step; correct
# source: https://jvns.ca/blog/2020/11/26/day-13--bptt---staring-at-graphs-a-lot/
import random
import string

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = ("shall i compare thee to a summers day thou art more lovely and more temperate "
)
VOCAB = sorted(set(string.ascii_lowercase + " "))
CHAR2IDX = {c: i for i, c in enumerate(VOCAB)}


class CharRNN(nn.Module):
    def __init__(self, vocab_size, hidden_size=32):
        super().__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        self.rnn = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.decoder = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.embedding(x).view(1, 1, -1), hidden)
        return self.decoder(out.view(1, -1)), hidden

    def init_hidden(self):
        return torch.zeros(1, 1, self.hidden_size)


class Trainer:
    def __init__(self, text, lr=5e-3):
        self.model = CharRNN(len(VOCAB))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        data = torch.tensor([CHAR2IDX[c] for c in text])
        self.training_data = list(zip(data[:-1], data[1:]))
        self.losses = []

    def train_epoch(self):
        hidden = self.model.init_hidden()
        for i, (inp, target) in enumerate(self.training_data):
            output, hidden = self.model(inp.view(1), hidden)
            # only do the optimizer step 10% of the time
            if random.randint(0, 10) == 2:
                loss = F.cross_entropy(output, target.view(1))
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1)
                self.optimizer.step()
                self.losses.append(loss.item())
                hidden = hidden.detach()

    def sample(self, n=20):
        hidden = self.model.init_hidden()
        idx = torch.tensor([CHAR2IDX["t"]])
        out = ["t"]
        with torch.no_grad():
            for _ in range(n):
                logits, hidden = self.model(idx, hidden)
                idx = torch.multinomial(logits.softmax(-1), 1).view(1)
                out.append(VOCAB[idx.item()])
        return "".join(out)


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    trainer = Trainer(TEXT)
    for epoch in range(2):
        trainer.train_epoch()
        print(f"epoch {epoch} mean loss {np.mean(trainer.losses[-10:]):.3f} sample: {trainer.sample()}")


if __name__ == "__main__":
    main()
