# corpus: GRU4Rec session-parallel trainer: the GRU hidden state is carried from one mini-batch to the next, but reset_hidden(...).detach() cuts its history at the top of every step, so each backward only walks the current step (correct)
# source: https://github.com/yhs968/pyGRU4REC/issues/8
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GRU4RecConfig:
    n_items: int = 20
    hidden_size: int = 16
    num_layers: int = 1
    batch_size: int = 4
    lr: float = 0.05
    n_epochs: int = 2


class GRU4REC(nn.Module):
    def __init__(self, cfg: GRU4RecConfig):
        super().__init__()
        self.cfg = cfg
        self.item_embedding = nn.Embedding(cfg.n_items, cfg.hidden_size)
        self.gru = nn.GRU(cfg.hidden_size, cfg.hidden_size, cfg.num_layers)
        self.h2o = nn.Linear(cfg.hidden_size, cfg.n_items)

    def forward(self, item_ids, hidden):
        embedded = self.item_embedding(item_ids).unsqueeze(0)
        output, hidden = self.gru(embedded, hidden)
        logit = self.h2o(output.squeeze(0))
        return logit, hidden

    def init_hidden(self):
        return torch.zeros(self.cfg.num_layers, self.cfg.batch_size, self.cfg.hidden_size)


class TOP1Loss(nn.Module):
    def forward(self, logit):
        diff = -(logit.diag().view(-1, 1).expand_as(logit) - logit)
        return torch.mean(torch.sigmoid(diff) + torch.sigmoid(logit ** 2))


class SessionDataLoader:
    """Session-parallel mini-batches: each column follows one session; finished sessions are replaced."""

    def __init__(self, sessions, batch_size):
        self.sessions = sessions
        self.batch_size = batch_size

    def __iter__(self):
        iters = list(range(self.batch_size))
        pos = [0] * self.batch_size
        next_session = self.batch_size
        mask = []
        while True:
            inp = torch.tensor([self.sessions[s][p] for s, p in zip(iters, pos)])
            target = torch.tensor([self.sessions[s][p + 1] for s, p in zip(iters, pos)])
            yield inp, target, mask
            mask = []
            for k in range(self.batch_size):
                pos[k] += 1
                if pos[k] + 1 >= len(self.sessions[iters[k]]):
                    if next_session >= len(self.sessions):
                        return
                    iters[k], pos[k] = next_session, 0
                    next_session += 1
                    mask.append(k)


def reset_hidden(hidden, mask):
    if len(mask) != 0:
        hidden[:, mask, :] = 0
    return hidden


class Trainer:
    def __init__(self, model, loss_func, optimizer, cfg: GRU4RecConfig):
        self.model = model
        self.loss_func = loss_func
        self.optimizer = optimizer
        self.cfg = cfg

    def train_epoch(self, loader):
        self.model.train()
        losses = []
        hidden = self.model.init_hidden()
        for inp, target, mask in loader:
            hidden = reset_hidden(hidden, mask).detach()
            self.optimizer.zero_grad()
            logit, hidden = self.model(inp, hidden)
            logit_sampled = logit[:, target.view(-1)]
            loss = self.loss_func(logit_sampled)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())
        return sum(losses) / len(losses)

    def train(self, loader):
        for epoch in range(self.cfg.n_epochs):
            print(f"epoch {epoch}: loss {self.train_epoch(loader):.4f}")


def make_sessions(n_sessions, n_items):
    return [torch.randint(0, n_items, (int(torch.randint(3, 7, ())),)).tolist() for _ in range(n_sessions)]


def main():
    torch.manual_seed(0)
    cfg = GRU4RecConfig()
    model = GRU4REC(cfg)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=cfg.lr)
    loader = SessionDataLoader(make_sessions(10, cfg.n_items), cfg.batch_size)
    Trainer(model, TOP1Loss(), optimizer, cfg).train(loader)


if __name__ == "__main__":
    main()
