# corpus: RNN language-model trainer with gradient accumulation scales each loss by the number of accumulation steps, steps and zeroes only every N batches, and repackages the carried LSTM state after each backward; the bare loss.detach() is a no-op but nothing reuses the loss graph.
# source: https://github.com/hirofumi0810/neural_sp/issues/168
import argparse
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


class Dataset(object):
    def __init__(self, n_batches, batch_size, bptt, vocab, n_epochs=2):
        self.data = [torch.randint(0, vocab, (batch_size, bptt + 1)) for _ in range(n_batches)]
        self.offset = 0
        self.epoch = 0
        self.vocab = vocab

    def __len__(self):
        return len(self.data)

    def next(self):
        ys = self.data[self.offset]
        self.offset += 1
        is_new_epoch = self.offset == len(self.data)
        if is_new_epoch:
            self.offset = 0
            self.epoch += 1
        return ys, is_new_epoch


class Reporter(object):
    def __init__(self):
        self.observations = []

    def add(self, observation, is_eval=False):
        self.observations.append((is_eval, observation))

    def step(self, is_eval=False):
        pass


class RNNLM(nn.Module):
    def __init__(self, vocab, emb_dim=16, n_units=24, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb_dim)
        self.rnn = nn.LSTM(emb_dim, n_units, n_layers, batch_first=True)
        self.output = nn.Linear(n_units, vocab)
        self.vocab = vocab

    def decode(self, ys_in, state):
        out, state = self.rnn(self.embed(ys_in), state)
        return self.output(out), state

    def forward(self, ys, state, is_eval=False):
        if is_eval:
            self.eval()
            with torch.no_grad():
                loss, state, observation = self._forward(ys, state)
            self.train()
        else:
            loss, state, observation = self._forward(ys, state)
        return loss, state, observation

    def _forward(self, ys, state):
        ys_in, ys_out = ys[:, :-1], ys[:, 1:]
        logits, state = self.decode(ys_in, state)
        loss = F.cross_entropy(logits.reshape(-1, self.vocab), ys_out.reshape(-1))
        observation = {'loss.lm': loss.item(), 'ppl.lm': torch.exp(loss).item()}
        return loss, state, observation

    def repackage_state(self, state):
        if state is None:
            return None
        return (state[0].detach(), state[1].detach())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--accum_grad_n_steps', type=int, default=2)
    parser.add_argument('--clip_grad_norm', type=float, default=1.0)
    parser.add_argument('--print_step', type=int, default=3)
    parser.add_argument('--n_epochs', type=int, default=2)
    parser.add_argument('--lr', type=float, default=1e-3)
    args = parser.parse_args([])

    torch.manual_seed(1)
    vocab = 30
    train_set = Dataset(n_batches=4, batch_size=3, bptt=6, vocab=vocab)
    dev_set = Dataset(n_batches=1, batch_size=3, bptt=6, vocab=vocab)
    model = RNNLM(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    reporter = Reporter()

    hidden = None
    accum_n_steps = 0
    n_steps = 0
    n_epochs = 0
    while True:
        ys_train, is_new_epoch = train_set.next()
        accum_n_steps += 1

        loss, hidden, observation = model(ys_train, hidden)
        reporter.add(observation)
        loss = loss / args.accum_grad_n_steps
        loss.backward()
        loss.detach()
        if args.accum_grad_n_steps == 1 or accum_n_steps >= args.accum_grad_n_steps:
            if args.clip_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad_norm)
            optimizer.step()
            optimizer.zero_grad()
            accum_n_steps = 0
        loss_train = loss.item()
        del loss
        hidden = model.repackage_state(hidden)
        reporter.step()
        n_steps += 1

        if n_steps % args.print_step == 0:
            ys_dev = dev_set.next()[0]
            loss, _, observation = model(ys_dev, None, is_eval=True)
            reporter.add(observation, is_eval=True)
            loss_dev = loss.item()
            del loss
            reporter.step(is_eval=True)
            print("step:%d(ep:%d) loss:%.3f(%.3f)" % (n_steps, n_epochs, loss_train, loss_dev))

        if is_new_epoch:
            n_epochs += 1
            if n_epochs == args.n_epochs:
                break


if __name__ == '__main__':
    main()
