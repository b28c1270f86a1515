# corpus: correct: Trainer detaches self.hidden at the top of each train_step and uses retain_graph=True only for a second loss over the same step's forward before a single step
# source: docs/rules/GG302.md (shape: 1, 5)
import torch
import torch.nn as nn
import torch.nn.functional as F


class SequenceTrainer:
    def __init__(self, rnn, head, optimizer, aux_weight=0.1, batch_size=2):
        self.rnn = rnn
        self.head = head
        self.optimizer = optimizer
        self.aux_weight = aux_weight
        self.hidden = torch.zeros(1, batch_size, rnn.hidden_size)

    def compute_losses(self, x, y):
        out, self.hidden = self.rnn(x, self.hidden)
        main = F.mse_loss(self.head(out[:, -1]), y)
        aux = self.aux_weight * out.pow(2).mean()
        return main, aux

    def train_step(self, x, y):
        self.hidden = self.hidden.detach()
        main, aux = self.compute_losses(x, y)
        self.optimizer.zero_grad()
        main.backward(retain_graph=True)
        aux.backward()
        self.optimizer.step()
        return main.item()

    def fit(self, steps=3):
        return [self.train_step(torch.randn(2, 5, 4), torch.randn(2, 1)) for _ in range(steps)]


def main():
    torch.manual_seed(0)
    rnn = nn.GRU(4, 8, batch_first=True)
    head = nn.Linear(8, 1)
    optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)
    SequenceTrainer(rnn, head, optimizer).fit()


if __name__ == "__main__":
    main()
