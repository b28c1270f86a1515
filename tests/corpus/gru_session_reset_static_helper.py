# corpus: session-parallel GRU training resets finished lanes of the hidden state through a staticmethod, but never detaches it
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self):
        self.embed = nn.Embedding(10, 6)
        self.gru = nn.GRU(6, 6)
        self.out = nn.Linear(6, 10)
        params = [*self.embed.parameters(), *self.gru.parameters(), *self.out.parameters()]
        self.optim = torch.optim.SGD(params, lr=0.1)

    @staticmethod
    def reset_hidden(hidden, mask):
        if mask:
            hidden[:, mask, :] = 0
        return hidden

    def train_epoch(self, batches):
        hidden = torch.zeros(1, 3, 6)
        for items, targets, mask in batches:
            hidden = self.reset_hidden(hidden, mask)  # expect: GG104
            output, hidden = self.gru(self.embed(items).unsqueeze(0), hidden)
            loss = F.cross_entropy(self.out(output.squeeze(0)), targets)
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()


torch.manual_seed(0)
batches = [(torch.randint(0, 10, (3,)), torch.randint(0, 10, (3,)), [i % 3]) for i in range(3)]
Trainer().train_epoch(batches)
