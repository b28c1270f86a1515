# corpus: GRU4Rec session-parallel trainer resets finished sessions in the carried hidden state but never detaches it before the next mini-batch
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/mquad/sars_tutorial/issues/5
import torch
import torch.nn as nn
import torch.nn.functional as F

N_ITEMS = 30


class GRU4REC(nn.Module):
    def __init__(self, n_items, hidden_size=16, batch_size=4):
        super().__init__()
        self.hidden_size = hidden_size
        self.batch_size = batch_size
        self.embed = nn.Embedding(n_items, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, num_layers=1)
        self.h2o = nn.Linear(hidden_size, n_items)

    def init_hidden(self):
        return torch.zeros(1, self.batch_size, self.hidden_size)

    def forward(self, input, hidden):
        emb = self.embed(input).unsqueeze(0)
        output, hidden = self.gru(emb, hidden)
        logit = self.h2o(output.squeeze(0))
        return logit, hidden


class SessionParallelLoader:
    """Yields (input, target, mask) where mask lists the lanes whose session just ended."""

    def __init__(self, steps, batch_size):
        self.steps = steps
        self.batch_size = batch_size

    def __iter__(self):
        for step in range(self.steps):
            inp = torch.randint(0, N_ITEMS, (self.batch_size,))
            tgt = torch.randint(0, N_ITEMS, (self.batch_size,))
            mask = [i for i in range(self.batch_size) if (step + i) % 3 == 0]
            yield inp, tgt, mask


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optim = torch.optim.Adagrad(model.parameters(), lr=0.05)

    @staticmethod
    def reset_hidden(hidden, mask):
        if len(mask) != 0:
            hidden[:, mask, :] = 0
        return hidden

    def train_epoch(self):
        losses = []
        hidden = self.model.init_hidden()
        for input, target, mask in self.loader:
            hidden = self.reset_hidden(hidden, mask)  # expect: GG104
            self.optim.zero_grad()
            logit, hidden = self.model(input, hidden)  # also: GG104
            loss = F.cross_entropy(logit, target)
            loss.backward()  # also: GG104
            self.optim.step()
            losses.append(loss.item())
        return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    model = GRU4REC(N_ITEMS)
    trainer = Trainer(model, SessionParallelLoader(steps=5, batch_size=4))
    print(trainer.train_epoch())


if __name__ == "__main__":
    main()
