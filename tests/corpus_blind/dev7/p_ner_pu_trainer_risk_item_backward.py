# corpus: PU-learning NER tagger (LexiconNER-style) whose loss_func returns the non-negative PU risk as Python floats via .item(), and train_mini_batch then calls backward on that float
# raises: AttributeError: 'float' object has no attribute 'backward'
# source: https://github.com/v-mipeng/LexiconNER/issues/7
import argparse

import torch
import torch.nn as nn


class PULSTMCNN(nn.Module):
    def __init__(self, vocab_size, word_dim, hidden_dim, prior, beta=0.0, gamma=1.0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, word_dim)
        self.lstm = nn.LSTM(word_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden_dim, 2)
        self.prior = prior
        self.beta = beta
        self.gamma = gamma

    def forward(self, token_ids):
        h, _ = self.lstm(self.embed(token_ids))
        return torch.log_softmax(self.fc(h), dim=-1)

    def loss_func(self, yPred, ySoft, mask):
        # yPred: log-probs [B, T, 2]; ySoft: 1 for lexicon-matched (positive) tokens, 0 unlabeled
        y = ySoft.float()
        pos = (y * mask).sum().clamp(min=1)
        unl = ((1 - y) * mask).sum().clamp(min=1)
        pRisk = -(yPred[..., 1] * y * mask).sum() / pos
        uRisk = -(yPred[..., 0] * (1 - y) * mask).sum() / unl
        nRisk = uRisk - self.prior * (-(yPred[..., 0] * y * mask).sum() / pos)
        risk = self.prior * pRisk + nRisk
        if nRisk < -self.beta:
            risk = -self.gamma * nRisk
        acc = ((yPred.argmax(-1) == y.long()).float() * mask).sum() / mask.sum()
        return acc.item(), risk.item(), pRisk.item(), nRisk.item()  # also: GG106


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def train_mini_batch(self, batch, args):
        token_ids, ySoft, mask = batch
        self.optimizer.zero_grad()
        result = self.model(token_ids)
        acc, risk, prisk, nrisk = self.model.loss_func(result, ySoft, mask)
        (risk).backward()  # expect: GG106
        self.optimizer.step()
        return acc, risk, prisk, nrisk


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--prior", type=float, default=0.1)
    parser.add_argument("--beta", type=float, default=0.0)
    parser.add_argument("--gamma", type=float, default=1.0)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = PULSTMCNN(vocab_size=50, word_dim=8, hidden_dim=8, prior=args.prior,
                      beta=args.beta, gamma=args.gamma)
    trainer = Trainer(model, torch.optim.Adam(model.parameters(), lr=args.lr))
    for epoch in range(2):
        batch = (torch.randint(0, 50, (4, 6)), torch.randint(0, 2, (4, 6)), torch.ones(4, 6))
        acc, risk, prisk, nrisk = trainer.train_mini_batch(batch, args)
        print(epoch, acc, risk)


if __name__ == "__main__":
    main()
