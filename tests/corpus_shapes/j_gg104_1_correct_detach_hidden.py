# corpus: correct: a GRU Trainer carries self.hidden across train_step calls but detaches it at the top of each step (truncated BPTT)
# source: docs/rules/GG104.md (shape: 1, 5)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, rnn, head, optimizer, batch_size=2):
        self.rnn = rnn
        self.head = head
        self.optimizer = optimizer
        self.hidden = torch.zeros(1, batch_size, rnn.hidden_size)

    def compute_loss(self, x, y):
        self.hidden = self.hidden.detach()
        out, self.hidden = self.rnn(x, self.hidden)
        return F.mse_loss(self.head(out[:, -1]), y)

    def train_step(self, batch):
        x, y = batch
        loss = self.compute_loss(x, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        return [self.train_step(b) for b in batches]


torch.manual_seed(0)
rnn = nn.GRU(4, 8, batch_first=True)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
trainer = Trainer(rnn, head, opt)
print(trainer.fit([(torch.randn(2, 5, 4), torch.randn(2, 1)) for _ in range(3)]))
