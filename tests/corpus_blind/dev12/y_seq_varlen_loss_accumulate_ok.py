# corpus: LSTM sequence tagger on a batch of variable-length sequences (forum thread shape): the per-sequence criterion values are summed with loss += loss_part inside one batch and backpropagated once, while the epoch statistics keep only loss.item() and detached argmax predictions; correct
# source: https://discuss.pytorch.org/t/gpu-memory-increase-while-i-wanna-to-backward-with-accumulative-loss/43284
import random

import numpy as np
import torch
import torch.nn as nn


class LSTMTagger(nn.Module):
    def __init__(self, vocab_size=30, tagset_size=5, emb_dim=16, hidden_dim=16):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim)
        self.lstm = nn.LSTM(emb_dim, hidden_dim)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.embedding(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        return torch.log_softmax(self.hidden2tag(lstm_out.view(len(sentence), -1)), dim=1)


def make_corpus(n=12, vocab_size=30, tagset_size=5):
    g = torch.Generator().manual_seed(0)
    corpus = []
    for _ in range(n):
        length = int(torch.randint(3, 9, (1,), generator=g))
        words = torch.randint(0, vocab_size, (length,), generator=g)
        tags = words % tagset_size
        corpus.append((words, tags))
    return corpus


class Trainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.criteria = nn.NLLLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.history = []

    def train_epoch(self, corpus, batch_size=6):
        self.model.train()
        epoch_loss, predictions = 0.0, []
        for i in range(0, len(corpus), batch_size):
            batch = corpus[i:i + batch_size]
            self.optimizer.zero_grad()
            loss = 0
            for seq_i, target_i in batch:
                out_i = self.model(seq_i)
                loss_part = self.criteria(out_i, target_i)
                loss += loss_part
                predictions.append(out_i.argmax(dim=1))
            loss = loss / len(batch)
            loss.backward()
            self.optimizer.step()
            epoch_loss += loss.item()
        self.history.append(epoch_loss)
        return epoch_loss, predictions


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    corpus = make_corpus()
    trainer = Trainer(LSTMTagger())
    for epoch in range(2):
        epoch_loss, preds = trainer.train_epoch(corpus)
        acc = np.mean([(p == t).float().mean().item() for p, (_, t) in zip(preds, corpus)])
        print(f"epoch {epoch} loss {epoch_loss:.4f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
