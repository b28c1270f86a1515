# corpus: fastbook LMModel4 keeps self.h on the module, detaches it at the end of every forward and a ModelResetter callback zeroes it each epoch (correct)
# source: https://forums.fast.ai/t/rnn-hidden-state-initializations-chapter-12/91887
import torch
import torch.nn as nn
import torch.nn.functional as F

sl = 4
bs = 6
vocab_sz = 20


class LMModel4(nn.Module):
    def __init__(self, vocab_sz, n_hidden):
        super().__init__()
        self.i_h = nn.Embedding(vocab_sz, n_hidden)
        self.h_h = nn.Linear(n_hidden, n_hidden)
        self.h_o = nn.Linear(n_hidden, vocab_sz)
        self.h = 0

    def forward(self, x):
        outs = []
        for i in range(sl):
            self.h = self.h + self.i_h(x[:, i])
            self.h = F.relu(self.h_h(self.h))
            outs.append(self.h_o(self.h))
        self.h = self.h.detach()
        return torch.stack(outs, dim=1)

    def reset(self):
        self.h = 0


class Callback:
    def before_epoch(self, learn):
        pass

    def after_epoch(self, learn):
        pass


class ModelResetter(Callback):
    def before_epoch(self, learn):
        learn.model.reset()

    def after_epoch(self, learn):
        learn.model.reset()


class Learner:
    def __init__(self, dls, model, loss_func, lr, cbs=()):
        self.dls, self.model, self.loss_func = dls, model, loss_func
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.cbs = list(cbs)
        self.recorder = []

    def _cb(self, name):
        for cb in self.cbs:
            getattr(cb, name)(self)

    def fit(self, n_epoch):
        for _ in range(n_epoch):
            self._cb("before_epoch")
            for xb, yb in self.dls:
                pred = self.model(xb)
                loss = self.loss_func(pred, yb)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.recorder.append(loss.item())
                self.last_h = self.model.h
            self._cb("after_epoch")


def loss_func(inp, targ):
    return F.cross_entropy(inp.reshape(-1, vocab_sz), targ.reshape(-1))


if __name__ == "__main__":
    torch.manual_seed(0)
    stream = torch.randint(0, vocab_sz, (bs, 4 * sl + 1))
    dls = [(stream[:, i:i + sl], stream[:, i + 1:i + 1 + sl]) for i in range(0, 4 * sl, sl)]
    learn = Learner(dls, LMModel4(vocab_sz, 16), loss_func, lr=0.1, cbs=[ModelResetter()])
    learn.fit(2)
    assert all(p.grad is not None for p in learn.model.parameters())
    assert learn.last_h.grad_fn is None
    assert all(isinstance(v, float) for v in learn.recorder)
